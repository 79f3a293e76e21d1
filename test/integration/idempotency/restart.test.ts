/**
 * Finished replies of idempotent requests survive a restart: a new gateway on the same SQLite file
 * replays them, and stops doing so 24 h after they were stored.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestGateway } from "../../support/gateway.ts";
import { startCountingUpstream, type CountingUpstream } from "./counting-upstream.ts";
import { MODEL, startIdempotencyGateway } from "./setup.ts";

const DAY_MS = 24 * 60 * 60 * 1000;
let dir: string;
let env: Record<string, string>;
let upstream: CountingUpstream;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "gw-idempotency-"));
  env = { DATABASE_URL: `sqlite://${join(dir, "gateway.db")}` };
  upstream = startCountingUpstream();
});
afterAll(() => {
  upstream.stop();
  rmSync(dir, { recursive: true, force: true });
});

const json = { model: MODEL, messages: [{ role: "user", content: "hello" }] };
const post = (gw: TestGateway, apiKey: string, stream = false) =>
  gw.request("/chat/completions", { method: "POST", key: apiKey, json: { ...json, stream }, headers: { "idempotency-key": stream ? "restart-stream" : "restart-1" } });

/** A gateway on the shared file; `clockOffsetMs` moves its clock (the expiry test). */
const start = (clockOffsetMs = 0) => startIdempotencyGateway(upstream.baseUrl, { env, overrides: { clock: { now: () => Date.now() + clockOffsetMs } } });

test("a new gateway on the same database replays what the old one finished, streams included; after 24 h it runs again", async () => {
  const before = await start();
  const apiKey = before.inferenceKey;
  const first = await post(before, apiKey);
  const firstBody = await first.text();
  const firstStream = await (await post(before, apiKey, true)).text();
  await before.close();
  expect(upstream.bodies).toHaveLength(2);

  const after = await start();
  const replay = await post(after, apiKey);
  expect(replay.status).toBe(200);
  expect(replay.headers.get("idempotent-replayed")).toBe("true");
  expect(replay.headers.get("x-generation-id")).toBe(first.headers.get("x-generation-id"));
  expect(await replay.text()).toBe(firstBody);
  expect(await (await post(after, apiKey, true)).text()).toBe(firstStream);
  expect(upstream.bodies).toHaveLength(2);
  await after.close();

  // A day and a minute later, the stored reply has expired: the same key runs the request again.
  const nextDay = await start(DAY_MS + 60_000);
  const fresh = await post(nextDay, apiKey);
  expect(fresh.status).toBe(200);
  expect(fresh.headers.get("idempotent-replayed")).toBeNull();
  expect(fresh.headers.get("x-generation-id")).not.toBe(first.headers.get("x-generation-id"));
  expect(upstream.bodies).toHaveLength(3);
  await nextDay.close();
});
