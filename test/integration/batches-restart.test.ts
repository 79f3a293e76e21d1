/**
 * "Nothing is lost or done twice": the real server as a child process on a SQLite file is killed with
 * SIGKILL in the middle of a batch and started again on the same file. Every request ends exactly once, the batch
 * completes, and the loopback upstream's recorded requests prove that no request that had finished ran again —
 * only requests interrupted mid-flight may be sent a second time.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startSimulatorServer } from "../../providers/simulator/server.ts";
import { call, spawnGateway, type BatchObject, type GatewayProcess } from "../unit/batches/http-support.ts";

const ADMIN = "restart-test-admin-key";
const ITEMS = 16;
const CONCURRENCY = 4;

const upstream = startSimulatorServer({ record: true });
const children: GatewayProcess[] = [];
afterAll(async () => {
  for (const { child } of children) child.kill("SIGKILL");
  await upstream.stop();
});

const marker = (i: number) => `restart-${i} `;
const calls = (i: number) => upstream.requests.filter((r) => JSON.stringify(r.body).includes(marker(i))).length;

describe("a gateway killed mid-batch", () => {
  test("restarts and completes the batch: every request ends exactly once, finished ones never run again", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gw-restart-"));
    const dbFile = join(dir, "gateway.db");
    const configFile = join(dir, "config.json");
    writeFileSync(
      configFile,
      JSON.stringify({
        providers: [{ id: "acme", adapter: "openai", base_url: upstream.url, api_key: "k", models: [{ id: "acme/model-a", upstream_model: "model-a", pricing: { prompt: 0.000001, completion: 0.000002 } }] }],
        // A short lease so the restarted process reclaims the killed one's requests quickly.
        batches: { poll_interval_ms: 50, lease_ms: 1_500, concurrency: CONCURRENCY, per_batch_concurrency: CONCURRENCY },
      }),
    );
    const env = { DATABASE_URL: `sqlite://${dbFile}`, GATEWAY_ADMIN_KEY: ADMIN, GATEWAY_CONFIG: configFile };

    const first = await spawnGateway(env);
    children.push(first);
    const key = ((await (await call(first.base, "/keys", ADMIN, { method: "POST", json: { name: "batch" } })).json()) as { key: string }).key;
    const requests = Array.from({ length: ITEMS }, (_, i) => ({ custom_id: `r${i}`, body: { messages: [{ role: "user", content: `${marker(i)}[sim latency=300]` }] } }));
    const submitted = await call(first.base, "/batches", key, { method: "POST", json: { endpoint: "/chat/completions", model: "acme/model-a", requests } });
    expect(submitted.status).toBe(202);
    const { id } = (await submitted.json()) as BatchObject;

    // Kill it once some requests finished and others are in flight.
    for (let i = 0; i < 200; i++) {
      const batch = (await (await call(first.base, `/batches/${id}`, key)).json()) as BatchObject;
      if (batch.request_counts.completed >= 4) break;
      await Bun.sleep(20);
    }
    first.child.kill("SIGKILL");
    await first.child.exited;

    // What the database holds at the moment of death.
    const db = new Database(dbFile);
    const before = db.query("select custom_id, status from batch_items where batch_id = ?").all(id) as Array<{ custom_id: string; status: string }>;
    db.close();
    const finishedBeforeKill = before.filter((item) => item.status === "completed").map((item) => Number(item.custom_id.slice(1)));
    expect(finishedBeforeKill.length).toBeGreaterThanOrEqual(4);
    expect(finishedBeforeKill.length).toBeLessThan(ITEMS);

    const second = await spawnGateway(env);
    children.push(second);
    let batch: BatchObject | undefined;
    for (let i = 0; i < 600; i++) {
      batch = (await (await call(second.base, `/batches/${id}`, key)).json()) as BatchObject;
      if (batch.status === "completed") break;
      await Bun.sleep(25);
    }
    expect(batch?.status).toBe("completed");
    expect(batch!.request_counts).toEqual({ completed: ITEMS, failed: 0, total: ITEMS });
    // Each request has exactly one result entry, with a response.
    expect(batch!.results!.map((r) => r.custom_id)).toEqual(requests.map((r) => r.custom_id));
    expect(batch!.results!.every((r) => r.response?.status_code === 200)).toBe(true);

    // Finished before the kill: sent upstream exactly once. Interrupted: at most twice, and at most one extra call
    // per request that was running when the process died.
    for (const i of finishedBeforeKill) expect(calls(i)).toBe(1);
    let extra = 0;
    for (let i = 0; i < ITEMS; i++) {
      expect(calls(i)).toBeGreaterThanOrEqual(1);
      expect(calls(i)).toBeLessThanOrEqual(2);
      extra += calls(i) - 1;
    }
    expect(extra).toBeLessThanOrEqual(CONCURRENCY);

    // Once completed, nothing runs any more.
    const total = upstream.requests.length;
    await Bun.sleep(400);
    expect(upstream.requests.length).toBe(total);
  }, 60_000);
});
