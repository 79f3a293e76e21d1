/** core/upstream-http/fetch.ts `abortable`: a connection attempt the request may abandon without waiting for it. */
import { describe, expect, test } from "bun:test";
import { Connection } from "../../../core/upstream-http/connection.ts";
import { abortable } from "../../../core/upstream-http/fetch.ts";

function deferredConnection() {
  let resolve!: (connection: Connection) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<Connection>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  const connection = new Connection("http://upstream.test");
  let destroyed = 0;
  connection.destroy = () => void destroyed++;
  return { promise, resolve, reject, connection, destroyed: () => destroyed };
}

describe("abortable connect", () => {
  test("an abort while connecting rejects at once with the abort reason; a connection arriving later is closed", async () => {
    const pending = deferredConnection();
    const controller = new AbortController();
    const racing = abortable(pending.promise, controller.signal);
    const reason = new Error("deadline");
    controller.abort(reason);
    expect(await racing.catch((e: unknown) => e)).toBe(reason);
    pending.resolve(pending.connection);
    await Bun.sleep(0);
    expect(pending.destroyed()).toBe(1);
  });

  test("an already aborted signal rejects without waiting, and still closes what the attempt yields", async () => {
    const pending = deferredConnection();
    const controller = new AbortController();
    controller.abort(new Error("gone"));
    expect(((await abortable(pending.promise, controller.signal).catch((e: unknown) => e)) as Error).message).toBe("gone");
    pending.resolve(pending.connection);
    await Bun.sleep(0);
    expect(pending.destroyed()).toBe(1);
  });

  test("without an abort it resolves with the connection, and a connect failure passes through", async () => {
    const ok = deferredConnection();
    const controller = new AbortController();
    const racing = abortable(ok.promise, controller.signal);
    ok.resolve(ok.connection);
    expect(await racing).toBe(ok.connection);
    expect(ok.destroyed()).toBe(0);

    const failing = deferredConnection();
    const refused = Object.assign(new Error("Failed to connect"), { code: "ECONNREFUSED" });
    const attempt = abortable(failing.promise, new AbortController().signal);
    failing.reject(refused);
    expect(await attempt.catch((e: unknown) => e)).toBe(refused);
  });
});
