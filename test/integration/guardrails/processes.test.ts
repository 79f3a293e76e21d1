/**
 * Guardrail changes reach every process: two `bun server.ts` processes on one database and one
 * Redis; a guardrail created, assigned, changed and deleted through one is enforced, relaxed and gone on the other
 * within 2 s (kv invalidation, as for keys; the policies' one-second expiry bounds it even without the channel).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findRedis, startOwnRedis, type OwnRedis } from "../../support/own-redis.ts";
import { call, spawnGateway, type GatewayProcess } from "../../unit/batches/http-support.ts";

type Json = Record<string, any>;
const ADMIN = "guardrails-processes-admin-key";
const redisBinary = findRedis();
const dir = mkdtempSync(join(tmpdir(), "gw-guardrail-procs-"));
let redis: OwnRedis | undefined;
let a: GatewayProcess;
let b: GatewayProcess;
let key: string;

beforeAll(async () => {
  const env: Record<string, string> = { DATABASE_URL: `sqlite://${join(dir, "gateway.db")}`, GATEWAY_ADMIN_KEY: ADMIN };
  if (typeof redisBinary === "string") {
    redis = await startOwnRedis(redisBinary);
    env.REDIS_URL = redis.url;
  }
  a = await spawnGateway(env);
  b = await spawnGateway(env);
  key = ((await (await call(a.base, "/keys", ADMIN, { method: "POST", json: { name: "procs" } })).json()) as Json).key;
}, 60_000);

afterAll(async () => {
  for (const p of [a, b]) p?.child.kill("SIGTERM");
  await Promise.all([a?.child.exited, b?.child.exited]);
  await redis?.kill();
  rmSync(dir, { recursive: true, force: true });
});

const ask = (base: string) => call(base, "/chat/completions", key, { method: "POST", json: { model: "simulator/small", messages: [{ role: "user", content: "the codeword is zebra-42" }] } });

/** Milliseconds until `base` answers `status` (polled every 25 ms), or fails after 5 s. */
async function until(base: string, status: number): Promise<number> {
  const started = performance.now();
  for (;;) {
    if ((await ask(base)).status === status) return performance.now() - started;
    if (performance.now() - started > 5_000) throw new Error(`still not ${status} after 5 s`);
    await Bun.sleep(25);
  }
}

describe(`two gateway processes${redis ? " on one Redis" : ""}`, () => {
  test("create + assign, change, delete on one: seen on the other within 2 s", async () => {
    expect((await ask(b.base)).status).toBe(200);
    const created = (await (await call(a.base, "/guardrails", ADMIN, { method: "POST", json: { name: "codeword", content_filters: [{ pattern: "zebra-\\d+", action: "block" }] } })).json()) as Json;
    const id = created.data.id as string;
    const hash = ((await (await call(a.base, "/key", key)).json()) as Json).data.hash as string;
    expect((await call(a.base, `/guardrails/${id}/assignments/keys`, ADMIN, { method: "POST", json: { key_hashes: [hash] } })).status).toBe(200);
    const blocked = await until(b.base, 403);
    expect(blocked).toBeLessThan(2_000);

    expect((await call(a.base, `/guardrails/${id}`, ADMIN, { method: "PATCH", json: { content_filters: [{ pattern: "zebra-\\d+", action: "flag" }] } })).status).toBe(200);
    expect(await until(b.base, 200)).toBeLessThan(2_000);

    expect((await call(a.base, `/guardrails/${id}`, ADMIN, { method: "PATCH", json: { content_filters: [{ pattern: "zebra-\\d+", action: "block" }] } })).status).toBe(200);
    expect(await until(b.base, 403)).toBeLessThan(2_000);
    expect((await call(a.base, `/guardrails/${id}`, ADMIN, { method: "DELETE" })).status).toBe(200);
    expect(await until(b.base, 200)).toBeLessThan(2_000);
    console.log(`guardrail change seen on the other process after ${blocked.toFixed(0)} ms (${redis ? "Redis" : "no Redis: expiry only"})`);
  }, 30_000);
});
