/**
 * Batch failure paths over HTTP: a batch whose key was revoked before it started fails (error.message + code),
 * `GET /batches/{id}` is rate limited (429), a store failure is a 500 that leaks nothing; and discount 0.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { BatchWorker } from "../../core/batches/worker.ts";
import { DEFAULT_BATCHES } from "../../core/config/load.ts";
import { openStore } from "../../core/store/connect.ts";
import { chatItem, getBatch, submit, waitForBatch, type Envelope } from "../unit/batches/http-support.ts";
import { ADMIN_KEY, startTestGateway, type TestGateway } from "../support/gateway.ts";

const sim = { endpoint: "/chat/completions", model: "simulator/small" };

describe("a batch whose key is revoked before it starts", () => {
  let gw: TestGateway;
  let worker: BatchWorker | undefined;
  beforeAll(async () => {
    // An API-only process (worker off), so the batch waits in `validating` until the test starts a worker.
    gw = await startTestGateway({ file: { batches: { worker: false, poll_interval_ms: 20, get_rate_limit_per_minute: 100_000 } } });
  });
  afterAll(async () => {
    await worker?.stop();
    await gw.close();
  });

  test("stays validating without a worker, then fails with code 401 and every request reports why", async () => {
    const batch = await submit(gw, { ...sim, requests: [chatItem("a", "rev-a"), chatItem("b", "rev-b")] });
    await Bun.sleep(100);
    expect((await getBatch(gw, batch.id)).status).toBe("validating");
    const patched = await gw.request(`/keys/${gw.inferenceKeyHash}`, { method: "PATCH", key: ADMIN_KEY, json: { disabled: true } });
    expect(patched.status).toBe(200);
    worker = new BatchWorker(gw.gateway.deps, { ...DEFAULT_BATCHES, pollIntervalMs: 20 });
    worker.start();
    // The submitting key is disabled, so the batch is read with the management key of its workspace.
    const read = async () => (await (await gw.request(`/batches/${batch.id}`, { key: ADMIN_KEY })).json()) as Awaited<ReturnType<typeof getBatch>>;
    let done = await read();
    for (let i = 0; i < 200 && done.status === "validating"; i++) {
      await Bun.sleep(20);
      done = await read();
    }
    expect(done.status).toBe("failed");
    expect(done.error).toEqual({ message: "The API key that submitted this batch is no longer valid", code: 401 });
    expect(done.request_counts).toEqual({ completed: 0, failed: 2, total: 2 });
    expect(done.results!.map((r) => [r.custom_id, r.error!.error_type, r.error!.type])).toEqual([
      ["a", "authentication", "authentication_error"],
      ["b", "authentication", "authentication_error"],
    ]);
  });
});

describe("429: batch status polling is rate limited per key", () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ file: { batches: { poll_interval_ms: 20, get_rate_limit_per_minute: 3 } } });
  });
  afterAll(async () => gw.close());

  test("the fourth GET within a minute is 429 with Retry-After", async () => {
    const batch = await submit(gw, { ...sim, requests: [chatItem("a", "rl")] });
    for (let i = 0; i < 3; i++) expect((await gw.request(`/batches/${batch.id}`)).status).toBe(200);
    const limited = await gw.request(`/batches/${batch.id}`);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(((await limited.json()) as Envelope).error.metadata.error_type).toBe("rate_limit_exceeded");
  });
});

describe("500: a store failure", () => {
  let gw: TestGateway;
  beforeAll(async () => {
    const store = await openStore("sqlite://:memory:");
    // Injected because a healthy database does not fail on demand; the worker is off so only the route hits it.
    const batches = { ...store.batches, get: async () => Promise.reject(new Error("connection to 10.0.0.7:5432 lost")) };
    gw = await startTestGateway({ overrides: { store: { ...store, batches } }, file: { batches: { worker: false } } });
  });
  afterAll(async () => gw.close());

  test("GET /batches/{id} answers a generic 500", async () => {
    const res = await gw.request("/batches/batch_any");
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text)).toMatchObject({ error: { code: 500, message: "Internal server error", metadata: { error_type: "server" } } });
    expect(text).not.toContain("10.0.0.7");
  });
});

describe("with `discount: 0` batch requests are charged the list price", () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ file: { batches: { poll_interval_ms: 20, discount: 0, get_rate_limit_per_minute: 100_000 } } });
  });
  afterAll(async () => gw.close());

  test("the result cost is the undiscounted price", async () => {
    const batch = await submit(gw, { ...sim, requests: [chatItem("a", "full price")] });
    const done = (await waitForBatch(gw, batch.id, (b) => b.status === "completed")).batch;
    const usage = done.results![0]!.response!.body.usage;
    expect(usage.cost).toBeCloseTo(usage.prompt_tokens * 0.0000001 + usage.completion_tokens * 0.0000004, 12);
  });
});
