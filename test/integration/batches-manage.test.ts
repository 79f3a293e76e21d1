/**
 * Managing batches over HTTP (README "Batches"): list with a cursor, cancel (cancelling → cancelled,
 * finished results kept), delete (terminal only, else 409), expiry past the 24 h window, and 410 once results are
 * deleted 30 days after creation. Time moves through an injected clock.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Clock } from "../../core/deps.ts";
import { startSimulatorServer, type SimulatorServer } from "../../providers/simulator/server.ts";
import { chatItem, getBatch, submit, TERMINAL, waitForBatch, type Envelope } from "../unit/batches/http-support.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** Real time plus an offset the tests move forward (never back: leases are stamped with this clock). */
let offset = 0;
const clock: Clock = { now: () => Date.now() + offset };

let upstream: SimulatorServer;
let gw: TestGateway;
const upstreamCalls = (marker: string) => upstream.requests.filter((r) => JSON.stringify(r.body).includes(marker)).length;
const acme = { endpoint: "/chat/completions", model: "acme/model-a" };

beforeAll(async () => {
  upstream = startSimulatorServer({ record: true });
  gw = await startTestGateway({
    overrides: { clock },
    file: {
      providers: [{ id: "acme", adapter: "openai", base_url: upstream.url, api_key: "k", models: [{ id: "acme/model-a", upstream_model: "model-a", pricing: { prompt: 0.000001, completion: 0.000002 } }] }],
      batches: { poll_interval_ms: 20, lease_ms: 5_000, per_batch_concurrency: 2, get_rate_limit_per_minute: 100_000 },
    },
  });
});
afterAll(async () => {
  await gw.close();
  await upstream.stop();
});

describe("list", () => {
  test("newest first, `after` cursor, has_more; list items omit results", async () => {
    const made = [];
    for (let i = 0; i < 3; i++) {
      made.push(await submit(gw, { ...acme, requests: [chatItem("a", `list-${i}`)] }));
      offset += 1_000; // distinct creation seconds
    }
    const first = (await (await gw.request("/batches?limit=2")).json()) as { object: string; data: Array<Record<string, unknown>>; first_id: string; last_id: string; has_more: boolean };
    expect(first.object).toBe("list");
    expect(first.data.map((b) => b.id)).toEqual([made[2]!.id, made[1]!.id]);
    expect(first).toMatchObject({ first_id: made[2]!.id, last_id: made[1]!.id, has_more: true });
    for (const item of first.data) {
      expect("results" in item).toBe(false);
      expect(item.object).toBe("batch");
    }
    const second = (await (await gw.request(`/batches?limit=2&after=${first.last_id}`)).json()) as { data: Array<{ id: string }>; has_more: boolean };
    expect(second.data.map((b) => b.id)).toEqual([made[0]!.id]);
    expect(second.has_more).toBe(false);
    expect((await gw.request("/batches?after=batch_unknown")).status).toBe(400);
  });
});

describe("cancel", () => {
  test("cancelling → cancelled: running requests finish and keep their results, the rest fail as cancelled without running", async () => {
    const requests = Array.from({ length: 6 }, (_, i) => chatItem(`c${i}`, `cancel-${i} [sim latency=400]`));
    const batch = await submit(gw, { ...acme, requests });
    await waitForBatch(gw, batch.id, (b) => b.status === "in_progress");
    await Bun.sleep(100); // the first two requests (per-batch concurrency 2) are now upstream
    const res = await gw.request(`/batches/${batch.id}/cancel`, { method: "POST" });
    expect(res.status).toBe(200);
    const cancelling = (await res.json()) as { status: string; results: unknown };
    expect(["cancelling", "cancelled"]).toContain(cancelling.status);
    expect(cancelling.results).toBeNull();
    const done = (await waitForBatch(gw, batch.id, (b) => b.status === "cancelled")).batch;
    expect(done.results!.map((r) => r.custom_id)).toEqual(requests.map((r) => r.custom_id));
    const completed = done.results!.filter((r) => r.response);
    const cancelled = done.results!.filter((r) => r.error);
    expect(completed.length).toBe(2);
    expect(done.request_counts).toEqual({ completed: 2, failed: 4, total: 6 });
    for (const entry of cancelled) {
      expect(entry.error).toMatchObject({ type: "cancelled", error_type: "precondition_failed" });
      expect(upstreamCalls(`cancel-${entry.custom_id.slice(1)} `)).toBe(0);
    }
    for (const entry of completed) expect(entry.response!.status_code).toBe(200);
    expect(typeof done.finalized_at).toBe("number");
    // Cancelling again is harmless; a finished batch cannot be cancelled.
    expect(((await (await gw.request(`/batches/${batch.id}/cancel`, { method: "POST" })).json()) as { status: string }).status).toBe("cancelled");
    const finished = await submit(gw, { ...acme, requests: [chatItem("a", "cancel-late")] });
    await waitForBatch(gw, finished.id, (b) => b.status === "completed");
    const late = await gw.request(`/batches/${finished.id}/cancel`, { method: "POST" });
    expect(late.status).toBe(409);
    expect(((await late.json()) as Envelope).error.metadata.error_type).toBe("precondition_failed");
  }, 15_000);
});

describe("delete", () => {
  test("409 while the batch runs; 200 once terminal, then it is gone (404) and no longer listed", async () => {
    const batch = await submit(gw, { ...acme, requests: [chatItem("a", "del-a [sim latency=300]")] });
    const early = await gw.request(`/batches/${batch.id}`, { method: "DELETE" });
    expect(early.status).toBe(409);
    const body = (await early.json()) as Envelope;
    expect(body.error.message).toContain("only completed, failed, expired or cancelled batches can be deleted");
    expect(body.error.metadata.error_type).toBe("precondition_failed");
    await waitForBatch(gw, batch.id, (b) => b.status === "completed");
    const res = await gw.request(`/batches/${batch.id}`, { method: "DELETE" });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ id: batch.id, object: "batch", deleted: true });
    expect((await gw.request(`/batches/${batch.id}`)).status).toBe(404);
    const listed = (await (await gw.request("/batches?limit=100")).json()) as { data: Array<{ id: string }> };
    expect(listed.data.map((b) => b.id)).not.toContain(batch.id);
  });
});

describe("time: the 24 h window and 30-day retention", () => {
  test("past 24 h the batch expires: unfinished requests fail with an expiry error, finished ones keep their results", async () => {
    const requests = [chatItem("quick", "exp-quick"), ...Array.from({ length: 4 }, (_, i) => chatItem(`slow${i}`, `exp-slow${i} [sim latency=1500]`))];
    const batch = await submit(gw, { ...acme, requests });
    await waitForBatch(gw, batch.id, (b) => b.request_counts.completed === 1);
    offset += 25 * HOUR;
    const done = (await waitForBatch(gw, batch.id, (b) => TERMINAL.includes(b.status))).batch;
    expect(done.status).toBe("expired");
    expect(done.error!.message).toContain("24h completion window");
    expect(done.results!.map((r) => r.custom_id)).toEqual(requests.map((r) => r.custom_id));
    expect(done.results![0]!.response!.status_code).toBe(200);
    for (const entry of done.results!.slice(1)) expect(entry.error).toMatchObject({ error_type: "timeout", type: "timeout_error" });
    expect(done.request_counts).toEqual({ completed: 1, failed: 4, total: 5 });
    // Requests still upstream when it expired cannot rewrite the outcome when they come back.
    await Bun.sleep(1_600);
    expect((await getBatch(gw, batch.id)).results).toEqual(done.results);
  }, 15_000);

  test("30 days after creation GET answers 410 and the results are deleted; the batch stays listed", async () => {
    const batch = await submit(gw, { ...acme, requests: [chatItem("a", "old-a")] });
    await waitForBatch(gw, batch.id, (b) => b.status === "completed");
    offset += 30 * DAY - 1_000;
    expect((await gw.request(`/batches/${batch.id}`)).status).toBe(200);
    offset += 2_000;
    const gone = await gw.request(`/batches/${batch.id}`);
    expect(gone.status).toBe(410);
    const body = (await gone.json()) as Envelope;
    expect(body.error).toMatchObject({ code: 410, metadata: { error_type: "not_found" } });
    expect(body.error.message).toContain("deleted 30 days after the batch was created");
    // The worker deletes expired results in the background, at most once a minute: let a minute pass.
    offset += 61_000;
    const store = gw.gateway.deps.store;
    for (let i = 0; i < 100 && (await store.batches.get(batch.id))?.purgedAt == null; i++) await Bun.sleep(20);
    expect(await store.batches.results(batch.id)).toEqual([]);
    const listed = (await (await gw.request("/batches?limit=100")).json()) as { data: Array<{ id: string; request_counts: { completed: number } }> };
    expect(listed.data.find((b) => b.id === batch.id)?.request_counts.completed).toBe(1);
  }, 15_000);
});
