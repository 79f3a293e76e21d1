/**
 * Store outages (README "Operations: store outages"), measured from outside like an operator would: `bun server.ts`
 * on its own Postgres (initdb into a temporary folder, its own port) and its own Redis (its own port), each stopped
 * by PID under concurrent inference and batch traffic, many times in a loop, and started again. The machine's shared
 * services are never touched; the suite skips, saying why, when the server binaries are missing.
 *
 * Every cycle: the process survives; every answer comes within a second and is a 200 or the 503 envelope with
 * `Retry-After` (never a 500, never a hang); liveness stays 200 and readiness is 503 naming the store until it is
 * back; batches finish exactly once (one result and one upstream call per request) within 15 s of the store
 * returning; and every key's usage is exactly what its 200 answers cost — including answers served while Postgres
 * was down, whose records the gateway kept and wrote once it came back.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startSimulatorServer, type SimulatorServer } from "../../providers/simulator/server.ts";
import { spawnGatewayChild, type GatewayChild } from "../support/gateway-process.ts";
import { findPostgres, startOwnPostgres, type OwnPostgres } from "../support/own-postgres.ts";
import { findRedis, startOwnRedis, type OwnRedis } from "../support/own-redis.ts";

const pgBins = findPostgres();
const redisBin = findRedis();
const skip = "skip" in pgBins ? pgBins.skip : typeof redisBin !== "string" ? redisBin.skip : undefined;
if (skip) console.log(`store outages: skipped (${skip})`);

const ADMIN = "store-outage-admin-key-0123456789";
const CYCLES = 5;
const ITEMS = 30;

type Json = Record<string, any>;
/** One answer a client got: when it was asked and answered (performance.now()), what it said. */
interface Answer {
  status: number;
  retryAfter: string | null;
  startedAt: number;
  endedAt: number;
  id?: string;
  cost?: number;
  store?: string;
  code?: string;
}

let postgres: OwnPostgres;
let redis: OwnRedis;
let upstream: SimulatorServer;
let gw: GatewayChild;
let base: string;

beforeAll(async () => {
  if (skip) return;
  [postgres, redis] = await Promise.all([startOwnPostgres(pgBins as Exclude<typeof pgBins, { skip: string }>), startOwnRedis(redisBin as string)]);
  upstream = startSimulatorServer({ record: true });
  const config = join(mkdtempSync(join(tmpdir(), "gw-outages-")), "gateway.json");
  writeFileSync(
    config,
    JSON.stringify({
      providers: [{ id: "acme", adapter: "openai", base_url: upstream.url, api_key: "k", models: [{ id: "acme/model-a", upstream_model: "model-a", pricing: { prompt: 0.000001, completion: 0.000002 } }] }],
      routing: { max_retries: 0 },
      batches: { poll_interval_ms: 50, concurrency: 4, per_batch_concurrency: 4 },
    }),
  );
  gw = spawnGatewayChild({ DATABASE_URL: postgres.url, REDIS_URL: redis.url, GATEWAY_ADMIN_KEY: ADMIN, GATEWAY_CONFIG: config });
  base = await gw.base();
  await gw.waitForLine(/gateway listening/);
}, 60_000);

afterAll(async () => {
  await gw?.kill();
  await upstream?.stop();
  await redis?.kill();
  await postgres?.destroy();
});

const call = (path: string, key: string, init: { method?: string; json?: unknown } = {}) =>
  fetch(base + path, {
    method: init.method ?? "GET",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    ...(init.json === undefined ? {} : { body: JSON.stringify(init.json) }),
  });

async function newKey(body: Json = {}): Promise<string> {
  const res = await call("/keys", ADMIN, { method: "POST", json: { name: "outage", ...body } });
  expect(res.status).toBe(201);
  return ((await res.json()) as { key: string }).key;
}

/** `clients` loops of chat requests with `key` until `stop()`; every answer is kept. */
function traffic(key: string, clients: number) {
  const answers: Answer[] = [];
  let running = true;
  const loops = Array.from({ length: clients }, async (_, c) => {
    for (let i = 0; running; i++) {
      const startedAt = performance.now();
      try {
        const res = await call("/chat/completions", key, { method: "POST", json: { model: "acme/model-a", messages: [{ role: "user", content: `client ${c} ask ${i}` }] } });
        const body = (await res.json()) as Json;
        answers.push({
          status: res.status,
          retryAfter: res.headers.get("retry-after"),
          startedAt,
          endedAt: performance.now(),
          id: body.id,
          cost: body.usage?.cost,
          store: body.error?.metadata?.availability?.store,
          code: body.error?.metadata?.availability?.code,
        });
      } catch {
        answers.push({ status: 0, retryAfter: null, startedAt, endedAt: performance.now() });
      }
      // Answers during an outage come back at once: pace the loop so it does not spin.
      await Bun.sleep(5);
    }
  });
  return {
    answers,
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}

async function submitBatch(key: string, marker: string): Promise<string> {
  // Slow enough (8 rounds of 400 ms at 4 at once) that requests are in flight through several outages.
  const requests = Array.from({ length: ITEMS }, (_, i) => ({ custom_id: `r${i}`, body: { messages: [{ role: "user", content: `${marker}-${i}# [sim latency=400]` }] } }));
  const res = await call("/batches", key, { method: "POST", json: { endpoint: "/chat/completions", model: "acme/model-a", requests } });
  expect(res.status).toBe(202);
  return ((await res.json()) as { id: string }).id;
}

/**
 * Polls until the batch completes, failing `timeoutMs` after `since` (performance.now()); returns it and when it
 * completed (its `finalized_at`, as milliseconds after `since`, 0 when it completed before).
 */
async function completed(id: string, key: string, since: number, timeoutMs: number): Promise<{ batch: Json; ms: number }> {
  for (;;) {
    const res = await call(`/batches/${id}`, key).catch(() => undefined);
    const batch = res?.status === 200 ? ((await res.json()) as Json) : undefined;
    if (batch?.status === "completed") {
      const finalizedAgo = Date.now() - batch.finalized_at * 1000;
      return { batch, ms: Math.max(0, performance.now() - finalizedAgo - since) };
    }
    if (performance.now() - since > timeoutMs) throw new Error(`batch ${id} not completed ${timeoutMs} ms after the last outage: ${JSON.stringify(batch?.request_counts ?? batch?.status)}`);
    await Bun.sleep(50);
  }
}

/** Polls readiness until 200; returns how long that took. */
async function readyAgain(timeoutMs = 10_000): Promise<number> {
  const started = performance.now();
  while ((await fetch(`${base}/health/ready`).then((r) => r.status, () => 0)) !== 200) {
    if (performance.now() - started > timeoutMs) throw new Error("readiness did not come back");
    await Bun.sleep(20);
  }
  return performance.now() - started;
}

/** While a store is down: liveness 200, readiness the 503 naming it. */
async function expectNotReady(store: string): Promise<void> {
  expect((await fetch(`${base}/health`)).status).toBe(200);
  const ready = await fetch(`${base}/health/ready`);
  expect(ready.status).toBe(503);
  expect(ready.headers.get("retry-after")).toBe("1");
  expect(((await ready.json()) as Json).error.metadata.availability.store).toBe(store);
}

/** The key's usage once the ledger has written everything (it flushes every 200 ms). */
async function settledUsage(key: string, expected: number): Promise<number> {
  let usage = Number.NaN;
  for (let i = 0; i < 100; i++) {
    const res = await call("/key", key);
    if (res.status === 200) usage = ((await res.json()) as Json).data.usage;
    if (Math.abs(usage - expected) < 1e-9) break;
    await Bun.sleep(50);
  }
  return usage;
}

/** Every request of the batch answered once, and sent upstream once. */
function expectExactlyOnce(batch: Json, marker: string): void {
  expect(batch.request_counts).toEqual({ completed: ITEMS, failed: 0, total: ITEMS });
  expect(batch.results.map((r: Json) => r.custom_id)).toEqual(Array.from({ length: ITEMS }, (_, i) => `r${i}`));
  for (let i = 0; i < ITEMS; i++) {
    const sent = upstream.requests.filter((r) => JSON.stringify(r.body).includes(`${marker}-${i}#`)).length;
    expect({ item: i, sent }).toEqual({ item: i, sent: 1 });
  }
}

/** Every answer: within a second, and a 200 or the 503 with Retry-After (never a 500, never a dropped connection). */
function expectHonestAnswers(answers: Answer[]): void {
  const bad = answers.filter((a) => a.status !== 200 && !(a.status === 503 && a.retryAfter === "1" && a.code === "temporarily_unavailable"));
  expect(bad).toEqual([]);
  const slow = answers.filter((a) => a.endedAt - a.startedAt >= 1_000);
  expect(slow).toEqual([]);
}

describe.skipIf(skip !== undefined)("the gateway when its stores go away and come back", () => {
  test(`Postgres stopped ${CYCLES} times under inference and batch traffic`, async () => {
    const chatKey = await newKey();
    const batchKey = await newKey();
    const batchId = await submitBatch(batchKey, "pg-outage");
    const load = traffic(chatKey, 4);
    const outages: Array<[number, number]> = [];
    const recoveries: number[] = [];
    for (let cycle = 0; cycle < CYCLES; cycle++) {
      await Bun.sleep(300);
      await postgres.stop();
      const downAt = performance.now();
      await Bun.sleep(150);
      await expectNotReady("database");
      await Bun.sleep(600);
      const upAt = performance.now();
      outages.push([downAt, upAt]);
      await postgres.start();
      recoveries.push(await readyAgain());
    }
    const { batch, ms } = await completed(batchId, batchKey, outages.at(-1)![1], 15_000);
    await load.stop();

    expect(gw.child.exitCode).toBeNull();
    expectHonestAnswers(load.answers);
    const refused = load.answers.filter((a) => a.status === 503);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.every((a) => a.store === "database")).toBe(true);
    expect(Math.max(...recoveries)).toBeLessThan(2_000);
    expect(ms).toBeLessThan(15_000);
    expectExactlyOnce(batch, "pg-outage");
    // Requests that finished while the database was away kept their claim and their result, and were written after
    // (logs are flushed about every second: wait for the line).
    await gw.waitForLine(/batch item result not written yet/, 3_000);
    const held = gw.lines.filter((l) => l.includes("batch item result not written yet")).length;

    // Billing: usage is exactly what the 200s cost, including those served while Postgres was down (their records
    // were kept in the ledger and written once it was back: each has its generation record now).
    const served = load.answers.filter((a) => a.status === 200);
    const duringOutage = served.filter((a) => outages.some(([down, up]) => a.startedAt > down && a.endedAt < up));
    expect(duringOutage.length).toBeGreaterThan(0);
    const expected = served.reduce((sum, a) => sum + a.cost!, 0);
    expect(await settledUsage(chatKey, expected)).toBeCloseTo(expected, 9);
    for (const answer of duringOutage) expect((await call(`/generation?id=${answer.id}`, chatKey)).status).toBe(200);
    expect(await settledUsage(batchKey, batch.usage.cost)).toBeCloseTo(batch.usage.cost, 9);
    console.log(
      `postgres: ${CYCLES} outages, ${served.length} answers 200 (${duringOutage.length} while down), ${refused.length} 503, ` +
        `slowest answer ${Math.round(Math.max(...load.answers.map((a) => a.endedAt - a.startedAt)))} ms, ready again after ` +
        `${recoveries.map((r) => Math.round(r)).join("/")} ms, ${held} batch results held through an outage, batch done ` +
        `${Math.round(ms)} ms after the last outage`,
    );
  }, 60_000);

  test(`Redis killed ${CYCLES} times under inference and batch traffic`, async () => {
    // A key with a credit limit needs Redis for its reservation (503 while it is away); one without is served.
    const limited = await newKey({ limit: 10 });
    const open = await newKey();
    const batchId = await submitBatch(limited, "redis-outage");
    const loads = [traffic(limited, 2), traffic(open, 2)];
    const recoveries: number[] = [];
    let lastUp = 0;
    for (let cycle = 0; cycle < CYCLES; cycle++) {
      await Bun.sleep(300);
      await redis.kill();
      await Bun.sleep(150);
      await expectNotReady("redis");
      await Bun.sleep(600);
      lastUp = performance.now();
      await redis.start();
      recoveries.push(await readyAgain());
    }
    const { batch, ms } = await completed(batchId, limited, lastUp, 15_000);
    await Promise.all(loads.map((l) => l.stop()));

    expect(gw.child.exitCode).toBeNull();
    for (const load of loads) expectHonestAnswers(load.answers);
    expect(loads[0]!.answers.filter((a) => a.status === 503).length).toBeGreaterThan(0);
    expect(loads[1]!.answers.every((a) => a.status === 200)).toBe(true); // rate limits fail open
    expect(Math.max(...recoveries)).toBeLessThan(3_000);
    expect(ms).toBeLessThan(15_000);
    expectExactlyOnce(batch, "redis-outage");
    const openCost = loads[1]!.answers.reduce((sum, a) => sum + (a.cost ?? 0), 0);
    expect(await settledUsage(open, openCost)).toBeCloseTo(openCost, 9);
    const limitedCost = loads[0]!.answers.reduce((sum, a) => sum + (a.cost ?? 0), 0) + batch.usage.cost;
    expect(await settledUsage(limited, limitedCost)).toBeCloseTo(limitedCost, 9);
    console.log(
      `redis: ${CYCLES} outages, ${loads[0]!.answers.filter((a) => a.status === 503).length} answers 503 for the limited key, ` +
        `ready again after ${recoveries.map((r) => Math.round(r)).join("/")} ms, batch done ${Math.round(ms)} ms after the last outage`,
    );
  }, 60_000);
});
