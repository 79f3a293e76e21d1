/**
 * Batches resume at once after a crash (hardening issue, item 2): `bun server.ts` is killed with SIGKILL in the middle
 * of a batch and started again — on a SQLite file, and on its own Postgres (initdb in a temporary folder, its own
 * port). The lease is set to a minute on purpose: the restarted process sees that the claims' holder is gone (it
 * names its process, worker-identity.ts) and takes them back at once, so the batch completes in seconds, every
 * request ends exactly once, and a request that had finished is never sent upstream again.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startSimulatorServer } from "../../providers/simulator/server.ts";
import { spawnGatewayChild, type GatewayChild } from "../support/gateway-process.ts";
import { findPostgres, startOwnPostgres, type OwnPostgres } from "../support/own-postgres.ts";

const ADMIN = "crash-resume-admin-key-0123456789";
const ITEMS = 16;
const LEASE_MS = 60_000;

const pgBins = findPostgres();
if ("skip" in pgBins) console.log(`batches crash resume: Postgres case skipped (${pgBins.skip})`);

const upstream = startSimulatorServer({ record: true });
const children: GatewayChild[] = [];
let postgres: OwnPostgres | undefined;
afterAll(async () => {
  await Promise.all(children.map((c) => c.kill()));
  await upstream.stop();
  await postgres?.destroy();
});

type Json = Record<string, any>;
const call = (base: string, path: string, key: string, json?: unknown) =>
  fetch(base + path, {
    method: json === undefined ? "GET" : "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
  });

async function start(env: Record<string, string>): Promise<{ gw: GatewayChild; base: string }> {
  const gw = spawnGatewayChild({ GATEWAY_ADMIN_KEY: ADMIN, ...env });
  children.push(gw);
  const base = await gw.base();
  await gw.waitForLine(/gateway listening/);
  return { gw, base };
}

async function crashAndResume(databaseUrl: string, marker: string): Promise<void> {
  const config = join(mkdtempSync(join(tmpdir(), "gw-crash-")), "gateway.json");
  writeFileSync(
    config,
    JSON.stringify({
      providers: [{ id: "acme", adapter: "openai", base_url: upstream.url, api_key: "k", models: [{ id: "acme/model-a", upstream_model: "model-a" }] }],
      batches: { poll_interval_ms: 50, lease_ms: LEASE_MS, concurrency: 4, per_batch_concurrency: 4 },
    }),
  );
  const env = { DATABASE_URL: databaseUrl, GATEWAY_CONFIG: config };
  const first = await start(env);
  const key = ((await (await call(first.base, "/keys", ADMIN, { name: "batch" })).json()) as Json).key as string;
  const requests = Array.from({ length: ITEMS }, (_, i) => ({ custom_id: `r${i}`, body: { messages: [{ role: "user", content: `${marker}-${i}# [sim latency=300]` }] } }));
  const { id } = (await (await call(first.base, "/batches", key, { endpoint: "/chat/completions", model: "acme/model-a", requests })).json()) as Json;
  // Killed once some requests finished and others are in flight (the upstream has more than the finished ones, each
  // held 300 ms): otherwise the kill could fall between two claims and leave nothing to take back.
  const sentTotal = () => Array.from({ length: ITEMS }, (_, i) => sent(marker, i)).reduce((a, b) => a + b, 0);
  for (let i = 0; i < 400; i++) {
    const batch = (await (await call(first.base, `/batches/${id}`, key)).json()) as Json;
    if (batch.request_counts.completed >= 4 && sentTotal() > batch.request_counts.completed) break;
    await Bun.sleep(10);
  }
  first.gw.child.kill("SIGKILL");
  await first.gw.child.exited;
  const sentBeforeKill = new Map(Array.from({ length: ITEMS }, (_, i) => [i, sent(marker, i)]));

  const restartedAt = performance.now();
  const second = await start(env);
  let batch: Json | undefined;
  for (let i = 0; i < 400; i++) {
    batch = (await (await call(second.base, `/batches/${id}`, key)).json()) as Json;
    if (batch.status === "completed") break;
    await Bun.sleep(25);
  }
  const resumedIn = performance.now() - restartedAt;
  expect(batch?.status).toBe("completed");
  // Far below the lease: the dead process's claims were taken back at once, not after LEASE_MS.
  expect(resumedIn).toBeLessThan(10_000);
  // (Logs are flushed about every second: wait for the line.)
  await second.gw.waitForLine(/took back the requests of a process that is gone/, 3_000);
  expect(batch!.request_counts).toEqual({ completed: ITEMS, failed: 0, total: ITEMS });
  expect(batch!.results.map((r: Json) => r.custom_id)).toEqual(requests.map((r) => r.custom_id));
  // Only the requests in flight at the kill (at most 4 at once) are sent again, each once; finished ones never.
  const again = Array.from({ length: ITEMS }, (_, i) => sent(marker, i) - sentBeforeKill.get(i)! - (sentBeforeKill.get(i)! === 0 ? 1 : 0));
  expect(again.every((n) => n === 0 || n === 1)).toBe(true);
  expect(again.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(4);
  console.log(`${marker}: batch completed ${Math.round(resumedIn)} ms after the restart (lease ${LEASE_MS} ms)`);
}

function sent(marker: string, i: number): number {
  return upstream.requests.filter((r) => JSON.stringify(r.body).includes(`${marker}-${i}#`)).length;
}

describe("a gateway killed mid-batch resumes it at once on restart", () => {
  test("on a SQLite file", async () => {
    await crashAndResume(`sqlite://${join(mkdtempSync(join(tmpdir(), "gw-crash-db-")), "gateway.db")}`, "sqlite-crash");
  }, 40_000);

  test.skipIf("skip" in pgBins)("on Postgres", async () => {
    postgres = await startOwnPostgres(pgBins as Exclude<typeof pgBins, { skip: string }>);
    await crashAndResume(postgres.url, "pg-crash");
  }, 40_000);
});
