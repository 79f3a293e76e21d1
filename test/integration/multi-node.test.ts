/**
 * Two gateways on one Postgres and one Redis behave as one gateway: credit limits, rate limits, sticky sessions,
 * endpoint cooldowns and key revocation hold across them. Runs when DATABASE_URL (postgres) and REDIS_URL are set,
 * as in CI. Provider ids are unique per run, so kv state of other runs sharing the Redis never interferes.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { hashSecret } from "../../core/auth/key-material.ts";
import { windowOf } from "../../core/limits/windows.ts";
import { startFaultUpstream, type FaultUpstream } from "../support/fault-upstream.ts";
import { ADMIN_KEY, startTestGateway, type TestGateway } from "../support/gateway.ts";
import { createTempSchema, POSTGRES_URL, type TempSchema } from "../support/pg-schema.ts";

type Json = Record<string, any>;

const REDIS_URL = process.env.REDIS_URL;
const enabled = POSTGRES_URL !== undefined && REDIS_URL !== undefined;
if (!enabled) console.log("multi-node: skipped (set DATABASE_URL=postgres://… and REDIS_URL=redis://… to run)");

const run = crypto.randomUUID().slice(0, 8);
const X = `x-${run}`;
const Y = `y-${run}`;
let schema: TempSchema;
let ux: FaultUpstream;
let uy: FaultUpstream;
let a: TestGateway;
let b: TestGateway;

function seeded(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 48271) % 2147483647) / 2147483647;
}

describe.skipIf(!enabled)("two gateways on one Postgres and one Redis", () => {
  beforeAll(async () => {
    schema = await createTempSchema(POSTGRES_URL!);
    [ux, uy] = [startFaultUpstream(X), startFaultUpstream(Y)];
    const file = {
      simulator: true,
      providers: [
        { id: X, adapter: "openai", base_url: ux.url, models: [{ id: "m/x", upstream_model: "x", pricing: { prompt: 1e-7, completion: 1e-7 } }] },
        { id: Y, adapter: "openai", base_url: uy.url, models: [{ id: "m/x", upstream_model: "x", pricing: { prompt: 3e-7, completion: 3e-7 } }] },
      ],
      routing: { max_retries: 0, breaker: { failure_threshold: 2, failure_window_ms: 10_000, cooldown_ms: 30_000 } },
    };
    const env = { DATABASE_URL: schema.url, REDIS_URL };
    a = await startTestGateway({ file, env, overrides: { random: seeded(1) } });
    b = await startTestGateway({ file, env, overrides: { random: seeded(2) } });
  });

  afterAll(async () => {
    await a?.close();
    await b?.close();
    ux?.stop();
    uy?.stop();
    await schema?.drop();
  });

  const key = async (body: Json) => ((await (await a.request("/keys", { key: ADMIN_KEY, method: "POST", json: { name: "multi", ...body } })).json()) as Json) as { key: string; data: Json };
  const chat = (gw: TestGateway, apiKey: string, extra: Json = {}, content = "hi") =>
    gw.request("/chat/completions", { method: "POST", key: apiKey, json: { model: "simulator/small", max_tokens: 100, messages: [{ role: "user", content }], ...extra } });

  test("a credit limit holds across both: 40 parallel requests split over two gateways, exactly the 10 that fit pass", async () => {
    // Per request: 46 prompt bytes + 16 tokens of overhead at 1e-7, 100 output tokens at 4e-7 (see limits.test.ts).
    const { key: k } = await key({ limit: 10 * 4.62e-5, limit_reset: "monthly" });
    const content = "count these words [sim tokens=100 latency=200]";
    const replies = await Promise.all(Array.from({ length: 40 }, (_, i) => chat(i % 2 === 0 ? a : b, k, {}, content)));
    expect(replies.filter((r) => r.status === 200)).toHaveLength(10);
    expect(replies.filter((r) => r.status === 402)).toHaveLength(30);
    const costs = await Promise.all(replies.filter((r) => r.status === 200).map(async (r) => ((await r.json()) as Json).usage.cost as number));
    const charged = costs.reduce((x, y) => x + y, 0);
    await a.gateway.deps.ledger.flush();
    await b.gateway.deps.ledger.flush();
    for (const gw of [a, b]) {
      const me = ((await (await gw.request("/key", { key: k })).json()) as Json).data;
      expect(me.usage).toBeCloseTo(charged, 12);
      expect(me.limit_remaining).toBeCloseTo(10 * 4.62e-5 - charged, 12);
    }
    // Redis loses the window's counter (a restart without persistence): the spending is re-read from Postgres.
    const window = windowOf("monthly", Date.now());
    await a.gateway.deps.kv.del(`gw:credits:spent:${hashSecret(k)}:${window.id}`);
    const me = ((await (await b.request("/key", { key: k })).json()) as Json).data;
    expect(me.limit_remaining).toBeCloseTo(10 * 4.62e-5 - charged, 12);
    const after = await Promise.all(Array.from({ length: 12 }, (_, i) => chat(i % 2 === 0 ? a : b, k, {}, content)));
    expect(after.filter((r) => r.status === 200).length).toBeLessThanOrEqual(Math.floor((10 * 4.62e-5 - charged) / 4.62e-5) + 1);
  });

  test("a rate limit holds across both", async () => {
    const { key: k } = await key({ rate_limit: { requests: 3, interval_seconds: 3_600 } });
    expect((await chat(a, k)).status).toBe(200);
    expect((await chat(b, k)).status).toBe(200);
    expect((await chat(a, k)).status).toBe(200);
    const limited = await chat(b, k);
    expect(limited.status).toBe(429);
    expect(limited.headers.get("x-ratelimit-limit")).toBe("3");
  });

  test("a sticky session pinned on one gateway is honoured by the other", async () => {
    const served = async (gw: TestGateway, extra: Json) => ((await (await chat(gw, a.inferenceKey, { model: "m/x", ...extra })).json()) as Json).provider as string;
    expect(await served(a, { session_id: `s-${run}`, provider: { order: [Y] } })).toBe(Y);
    await Bun.sleep(20);
    for (let i = 0; i < 6; i++) expect(await served(b, { session_id: `s-${run}` })).toBe(Y);
  });

  test("an endpoint that cools down on one gateway is avoided by the other at once", async () => {
    const served = async (gw: TestGateway) => ((await (await chat(gw, a.inferenceKey, { model: "m/x", provider: { sort: "price" } })).json()) as Json).provider as string;
    expect(await served(b)).toBe(X);
    ux.script({ kind: "status", status: 500 }, { kind: "status", status: 500 });
    expect(await served(a)).toBe(Y);
    expect(await served(a)).toBe(Y);
    const before = ux.requests.length;
    await Bun.sleep(50);
    for (let i = 0; i < 4; i++) expect(await served(b)).toBe(Y);
    expect(ux.requests.length).toBe(before);
  });

  test("revoking a key on one gateway rejects it on the other", async () => {
    const created = await key({});
    expect((await chat(b, created.key)).status).toBe(200);
    await a.request(`/keys/${created.data.hash}`, { key: ADMIN_KEY, method: "DELETE" });
    let status = 0;
    for (let i = 0; i < 20 && status !== 401; i++) {
      status = (await chat(b, created.key)).status;
      if (status !== 401) await Bun.sleep(10);
    }
    expect(status).toBe(401);
  });
});
