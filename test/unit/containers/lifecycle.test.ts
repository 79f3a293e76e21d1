/** Which container a tool call gets: ids, sessions, references, restart, the idle timer and the sweeper. */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { rm } from "node:fs/promises";
import { ContainerError } from "../../../core/containers/contract.ts";
import { EXEC } from "../../support/host-bash-sandbox.ts";
import { serviceFixture, type ServiceFixture } from "./helpers.ts";

const WS = "11111111-1111-4111-8111-111111111111";
const OTHER_WS = "22222222-2222-4222-8222-222222222222";

let fx: ServiceFixture;
beforeEach(async () => (fx = await serviceFixture()));
afterEach(async () => fx.close());

const scope = (sessionKey?: string, workspaceId = WS) => fx.service.forRequest(sessionKey === undefined ? { workspaceId } : { workspaceId, sessionKey });
const reference = (id: string) => ({ environment: { type: "container_reference" as const, container_id: id } });

async function rejection(promise: Promise<unknown>): Promise<ContainerError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ContainerError);
  return error as ContainerError;
}

describe("container_auto", () => {
  test("without a session: a new ctr_ container per request, shared by every call of the request", async () => {
    const first = scope();
    const a = await first.open({});
    const again = await first.open({ environment: { type: "container_auto" } });
    const b = await scope().open({});
    expect(a.id).toMatch(/^ctr_[0-9a-f]{32}$/);
    expect(again.id).toBe(a.id);
    expect(b.id).not.toBe(a.id);
    await a.writeFile("note.txt", "from call 1");
    expect(await again.readFile("note.txt")).toBe("from call 1");
  });

  test("with a session: sess_ + a hash; the same workspace and session get the same container across requests", async () => {
    const key = "my session/../ id with spaces";
    const a = await scope(key).open({});
    await a.writeFile("kept.txt", "kept");
    const b = await scope(key).open({});
    expect(a.id).toMatch(/^sess_[0-9a-f]{32}$/);
    expect(b.id).toBe(a.id);
    expect(await b.readFile("kept.txt")).toBe("kept");
    // Another session, or the same key in another workspace, is another container.
    expect((await scope("other session").open({})).id).not.toBe(a.id);
    expect((await scope(key, OTHER_WS).open({})).id).not.toBe(a.id);
  });
});

describe("container_reference", () => {
  test("reuses a container of the workspace from another request", async () => {
    const made = await scope().open({});
    await made.writeFile("data.csv", "a,b");
    const reused = await scope().open(reference(made.id));
    expect(reused.id).toBe(made.id);
    expect(await reused.readFile("data.csv")).toBe("a,b");
  });

  test("an unknown id, another workspace's id and a malformed id are clear tool errors", async () => {
    const theirs = await scope(undefined, OTHER_WS).open({});
    await theirs.writeFile("secret.txt", "theirs");
    expect((await rejection(scope().open(reference("ctr_0123456789abcdef")))).message).toContain("not found in this workspace");
    // Indistinguishable from an unknown id: another workspace's container is not revealed.
    expect((await rejection(scope().open(reference(theirs.id)))).message).toContain("not found in this workspace");
    expect((await rejection(scope().open(reference("../../etc")))).message).toContain("is not a container id");
    expect(await theirs.readFile("secret.txt")).toBe("theirs");
  });
});

describe("restart", () => {
  test("a fresh container suffixed -r<nonce>, used for the rest of the request; the old one keeps its files", async () => {
    const request = scope("s1");
    const original = await request.open({});
    await original.writeFile("old.txt", "old");
    const restarted = await request.open({ restart: true });
    expect(restarted.id).toMatch(new RegExp(`^${original.id}-r[0-9a-f]+$`));
    expect(await restarted.listFiles()).toEqual([]);
    // Later calls of the same request land in the restarted container.
    expect((await request.open({})).id).toBe(restarted.id);
    expect((await request.open(reference(original.id))).id).toBe(restarted.id);
    expect(await (await scope().open(reference(original.id))).readFile("old.txt")).toBe("old");
    // A new request of the session gets the session's container again.
    expect((await scope("s1").open({})).id).toBe(original.id);
    expect(request.used().map((used) => used.id)).toEqual([original.id, restarted.id]);
  });

  test("restarting a restarted container does not grow the id; restarting a foreign reference is refused", async () => {
    const request = scope();
    const first = await request.open({ restart: true });
    const second = await request.open({ restart: true });
    expect(second.id.match(/-r/g)).toHaveLength(1);
    expect(second.id).not.toBe(first.id);
    const theirs = await scope(undefined, OTHER_WS).open({});
    expect((await rejection(scope().open({ ...reference(theirs.id), restart: true }))).message).toContain("not found");
  });
});

describe("idle timer and sweeper", () => {
  test("expires_at is the last use plus sleep_after_seconds (default 900), renewed by every command", async () => {
    const start = fx.clock.now();
    const handle = await scope().open({});
    expect(handle.expiresAt).toBe(Math.floor(start / 1000) + 900);
    fx.clock.advance(600_000);
    await handle.exec("true", EXEC);
    expect(handle.expiresAt).toBe(Math.floor(start / 1000) + 600 + 900);
    fx.clock.advance(899_000);
    // Still alive 1,499 s after creation because the command renewed it.
    expect((await scope().open(reference(handle.id))).id).toBe(handle.id);
  });

  test("a referenced container past its idle time is an expired tool error, and its files are gone", async () => {
    const handle = await scope().open({ sleepAfterSeconds: 60 });
    await handle.writeFile("f.txt", "x");
    fx.clock.advance(60_000);
    expect((await rejection(scope().open(reference(handle.id)))).message).toContain("expired");
    expect((await rejection(scope().open(reference(handle.id)))).message).toContain("not found");
  });

  test("an expired session container is replaced by a fresh one under the same id", async () => {
    const handle = await scope("s").open({ sleepAfterSeconds: 10 });
    await handle.writeFile("f.txt", "x");
    fx.clock.advance(10_000);
    const fresh = await scope("s").open({});
    expect(fresh.id).toBe(handle.id);
    expect(await fresh.listFiles()).toEqual([]);
  });

  test("sweeping removes expired containers' files and keeps live ones", async () => {
    const short = await scope().open({ sleepAfterSeconds: 10 });
    const long = await scope().open({ sleepAfterSeconds: 1_000 });
    await short.writeFile("a.txt", "a");
    await long.writeFile("b.txt", "b");
    fx.clock.advance(9_000);
    expect(await fx.service.sweeper.sweep()).toBe(0);
    fx.clock.advance(1_000);
    expect(await fx.service.sweeper.sweep()).toBe(1);
    const dirs = [...new Bun.Glob("*/*").scanSync({ cwd: fx.dir, onlyFiles: false })];
    expect(dirs).toEqual([`${WS}/${long.id}`]);
    expect(await long.readFile("b.txt")).toBe("b");
  });

  test("sleep_after_seconds: 1 to 2,592,000 whole seconds", async () => {
    for (const bad of [0, -5, 1.5, 2_592_001]) {
      expect((await rejection(scope().open({ sleepAfterSeconds: bad }))).message).toContain("sleep_after_seconds");
    }
    const longest = await scope().open({ sleepAfterSeconds: 2_592_000 });
    expect(longest.expiresAt).toBe(Math.floor(fx.clock.now() / 1000) + 2_592_000);
  });

  test("used() reports each container once, with its current expiry", async () => {
    const request = scope();
    const handle = await request.open({ sleepAfterSeconds: 100 });
    await request.open({});
    fx.clock.advance(50_000);
    await handle.exec("true", EXEC);
    expect(request.used()).toEqual([{ id: handle.id, expiresAt: Math.floor(fx.clock.now() / 1000) + 100 }]);
  });
});

test("an unusable container directory is a tool error (store unavailable), not a crash", async () => {
  const handle = await scope().open({});
  await rm(fx.dir, { recursive: true, force: true });
  expect((await rejection(scope().open(reference(handle.id)))).message).toContain("unavailable");
  expect((await rejection(scope().open({}))).message).toContain("unavailable");
});
