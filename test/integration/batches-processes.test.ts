/**
 * Several gateway processes share one batch: two `bun server.ts` children on one Postgres schema and one
 * Redis claim items atomically (FOR UPDATE SKIP LOCKED), so no request is executed twice and both do work.
 * Runs when DATABASE_URL (postgres) and REDIS_URL are set, as in CI.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { startSimulatorServer, type SimulatorServer } from "../../providers/simulator/server.ts";
import { createTempSchema, type TempSchema } from "../support/pg-schema.ts";
import { call, spawnGateway, type BatchObject, type GatewayProcess } from "../unit/batches/http-support.ts";

const POSTGRES_URL = process.env.DATABASE_URL?.startsWith("postgres") ? process.env.DATABASE_URL : undefined;
const REDIS_URL = process.env.REDIS_URL;
const enabled = POSTGRES_URL !== undefined && REDIS_URL !== undefined;
if (!enabled) console.log("batches-processes: skipped (set DATABASE_URL=postgres://… and REDIS_URL=redis://… to run)");

const ADMIN = "two-process-admin-key";
const ITEMS = 30;

let upstream: SimulatorServer | undefined;
let schema: TempSchema | undefined;
const children: GatewayProcess[] = [];
afterAll(async () => {
  for (const { child } of children) child.kill("SIGKILL");
  await Promise.all(children.map(({ child }) => child.exited));
  await upstream?.stop();
  await schema?.drop();
});

describe.skipIf(!enabled)("two gateway processes on one Postgres and Redis", () => {
  test("share one batch: every request runs exactly once, both processes take part", async () => {
    upstream = startSimulatorServer({ record: true });
    schema = await createTempSchema(POSTGRES_URL!);
    const dir = mkdtempSync(join(tmpdir(), "gw-two-"));
    const configFile = join(dir, "config.json");
    writeFileSync(
      configFile,
      JSON.stringify({
        providers: [{ id: "acme", adapter: "openai", base_url: upstream.url, api_key: "k", models: [{ id: "acme/model-a", upstream_model: "model-a" }] }],
        batches: { poll_interval_ms: 30, lease_ms: 10_000, concurrency: 3, per_batch_concurrency: 3 },
      }),
    );
    const env = { DATABASE_URL: schema.url, REDIS_URL: REDIS_URL!, GATEWAY_ADMIN_KEY: ADMIN, GATEWAY_CONFIG: configFile };
    // Started one after the other: both migrate the same fresh schema otherwise, which is another test's subject.
    const a = await spawnGateway(env);
    children.push(a);
    const b = await spawnGateway(env);
    children.push(b);

    const key = ((await (await call(a.base, "/keys", ADMIN, { method: "POST", json: { name: "batch" } })).json()) as { key: string }).key;
    const requests = Array.from({ length: ITEMS }, (_, i) => ({ custom_id: `p${i}`, body: { messages: [{ role: "user", content: `shared-${i} [sim latency=80]` }] } }));
    const submitted = await call(a.base, "/batches", key, { method: "POST", json: { endpoint: "/v1/chat/completions", model: "acme/model-a", requests } });
    expect(submitted.status).toBe(202);
    const { id } = (await submitted.json()) as BatchObject;

    let batch: BatchObject | undefined;
    for (let i = 0; i < 400; i++) {
      // Read through the other process: the state is shared.
      batch = (await (await call(b.base, `/batches/${id}`, key)).json()) as BatchObject;
      if (batch.status === "completed") break;
      await Bun.sleep(25);
    }
    expect(batch?.status).toBe("completed");
    expect(batch!.request_counts).toEqual({ completed: ITEMS, failed: 0, total: ITEMS });
    expect(batch!.results!.map((r) => r.custom_id)).toEqual(requests.map((r) => r.custom_id));

    for (let i = 0; i < ITEMS; i++) {
      const calls = upstream.requests.filter((r) => JSON.stringify(r.body).includes(`shared-${i} `)).length;
      expect(calls).toBe(1);
    }
    const client = new pg.Client({ connectionString: schema.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ claimed_by: string; n: string; attempts: string }>(
        "select claimed_by, count(*) as n, max(attempts) as attempts from batch_items where batch_id = $1 group by claimed_by",
        [id],
      );
      expect(rows.length).toBe(2);
      expect(rows.every((row) => Number(row.attempts) === 1)).toBe(true);
      expect(rows.reduce((sum, row) => sum + Number(row.n), 0)).toBe(ITEMS);
    } finally {
      await client.end();
    }
  }, 60_000);
});
