/**
 * Batches over HTTP (spec "Batch", endpoint 5): submit → validating → in_progress → completed against
 * the loopback simulator, result entries, aggregate usage with the batch discount, validation that reports every
 * bad request, the three endpoints, auth and 404.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { hashSecret, labelOf, newSecret } from "../../core/auth/key-material.ts";
import { startSimulatorServer, type SimulatorServer } from "../../providers/simulator/server.ts";
import { chatItem, getBatch, submit, TERMINAL, waitForBatch, type Envelope } from "../unit/batches/http-support.ts";
import { ADMIN_KEY, startTestGateway, type TestGateway } from "../support/gateway.ts";

const PROMPT = 0.000001;
const COMPLETION = 0.000002;
const DISCOUNT = 0.5;

let upstream: SimulatorServer;
let gw: TestGateway;

/** How many times the upstream received a request whose body carries `marker`. */
const upstreamCalls = (marker: string) => upstream.requests.filter((r) => JSON.stringify(r.body).includes(marker)).length;
const round = (value: number) => Math.round(value * 1e12) / 1e12;

beforeAll(async () => {
  upstream = startSimulatorServer({ record: true });
  gw = await startTestGateway({
    file: {
      simulator: true,
      providers: [
        { id: "acme", adapter: "openai", base_url: upstream.url, api_key: "k", models: [{ id: "acme/model-a", upstream_model: "model-a", pricing: { prompt: PROMPT, completion: COMPLETION } }] },
        // Failures are injected on their own model, so the breaker of acme/model-a never opens because of them.
        { id: "flaky", adapter: "openai", base_url: upstream.url, api_key: "k", models: [{ id: "flaky/model", upstream_model: "flaky" }] },
      ],
      batches: { poll_interval_ms: 20, lease_ms: 5_000, discount: DISCOUNT, concurrency: 8, per_batch_concurrency: 3, get_rate_limit_per_minute: 100_000 },
    },
  });
});
afterAll(async () => {
  await gw.close();
  await upstream.stop();
});

describe("lifecycle", () => {
  test("202 validating with exactly the spec's Batch fields, then in_progress, then completed with results", async () => {
    const requests = Array.from({ length: 6 }, (_, i) => chatItem(`req-${i}`, `life-${i} [sim latency=60]`));
    const res = await gw.request("/batches", { method: "POST", json: { endpoint: "/v1/chat/completions", model: "acme/model-a", requests } });
    expect(res.status).toBe(202);
    const accepted = (await res.json()) as Record<string, unknown>;
    expect(Object.keys(accepted).sort()).toEqual(["completion_window", "created_at", "endpoint", "error", "finalized_at", "id", "model", "object", "request_counts", "results", "status", "usage"]);
    expect(accepted).toMatchObject({ object: "batch", endpoint: "/v1/chat/completions", model: "acme/model-a", status: "validating", completion_window: "24h", finalized_at: null, error: null, results: null, usage: null, request_counts: { completed: 0, failed: 0, total: 6 } });
    expect(Math.abs((accepted.created_at as number) - Date.now() / 1000)).toBeLessThan(5);

    const { batch, seen } = await waitForBatch(gw, accepted.id as string, (b) => TERMINAL.includes(b.status));
    expect(seen).toContain("in_progress");
    const order = ["validating", "in_progress", "finalizing", "completed"];
    expect(seen.map((s) => order.indexOf(s))).toEqual([...seen.map((s) => order.indexOf(s))].sort());
    expect(batch.status).toBe("completed");
    expect(batch.request_counts).toEqual({ completed: 6, failed: 0, total: 6 });
    expect(typeof batch.finalized_at).toBe("number");
    expect(batch.results!.map((r) => r.custom_id)).toEqual(requests.map((r) => r.custom_id));
    for (const entry of batch.results!) {
      expect(Object.keys(entry).sort()).toEqual(["custom_id", "id", "response"]);
      expect(entry.response!.status_code).toBe(200);
      expect(entry.response!.body.object).toBe("chat.completion");
      expect(entry.response!.request_id).toBe(entry.response!.body.id);
    }
    // Each request reached the upstream exactly once.
    for (let i = 0; i < 6; i++) expect(upstreamCalls(`life-${i} `)).toBe(1);
  });

  test("the batch discount: results, aggregate usage, generation records and the key's usage all carry the discounted price", async () => {
    const before = ((await (await gw.request("/key")).json()) as { data: { usage: number } }).data.usage;
    const batch = await submit(gw, { endpoint: "/chat/completions", model: "acme/model-a", requests: [chatItem("a", "disc-a [sim tokens=7]"), chatItem("b", "disc-b [sim tokens=13]")] });
    const done = (await waitForBatch(gw, batch.id, (b) => b.status === "completed")).batch;
    let sum = 0;
    let prompt = 0;
    let completion = 0;
    for (const entry of done.results!) {
      const usage = entry.response!.body.usage;
      const listPrice = usage.prompt_tokens * PROMPT + usage.completion_tokens * COMPLETION;
      expect(usage.cost).toBeCloseTo(round(listPrice * (1 - DISCOUNT)), 12);
      const generation = (await (await gw.request(`/generation?id=${entry.response!.request_id}`)).json()) as { data: { total_cost: number } };
      expect(generation.data.total_cost).toBeCloseTo(usage.cost, 12);
      sum += usage.cost;
      prompt += usage.prompt_tokens;
      completion += usage.completion_tokens;
    }
    expect(done.results!.map((r) => r.response!.body.usage.completion_tokens)).toEqual([7, 13]);
    expect(done.usage).toMatchObject({ prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion, is_byok: false, speed: "standard" });
    expect(done.usage!.cost).toBeCloseTo(sum, 12);
    const after = ((await (await gw.request("/key")).json()) as { data: { usage: number } }).data.usage;
    expect(after - before).toBeCloseTo(sum, 12);
  });

  test("failed requests are reported per entry (error with message, param, type, error_type); the batch still completes", async () => {
    const batch = await submit(gw, {
      endpoint: "/chat/completions",
      requests: [
        chatItem("ok", "fail-ok", { model: "acme/model-a" }),
        chatItem("bad", "fail-bad [sim status=400]", { model: "flaky/model" }),
        chatItem("down", "fail-down [sim status=502]", { model: "flaky/model" }),
      ],
    });
    expect(batch.model).toBeNull();
    const done = (await waitForBatch(gw, batch.id, (b) => b.status === "completed")).batch;
    expect(done.request_counts).toEqual({ completed: 1, failed: 2, total: 3 });
    const [ok, bad, down] = done.results!;
    expect(ok!.response!.status_code).toBe(200);
    expect(Object.keys(bad!).sort()).toEqual(["custom_id", "error", "id"]);
    expect(bad!.error).toMatchObject({ type: "invalid_request_error", error_type: "invalid_request", param: null });
    expect(bad!.error!.message.length).toBeGreaterThan(0);
    expect(down!.error).toMatchObject({ type: "server_error", error_type: "provider_unavailable" });
  });

  test("every endpoint runs through the pipeline and answers with chat-completions result bodies; presets resolve", async () => {
    await gw.request("/presets/batchy/messages", { method: "POST", key: ADMIN_KEY, json: { model: "acme/model-a", max_tokens: 9, system: "Preset system.", messages: [{ role: "user", content: "x" }] } });
    const messages = await submit(gw, {
      endpoint: "/v1/messages",
      requests: [
        { custom_id: "m1", body: { model: "acme/model-a", max_tokens: 5, messages: [{ role: "user", content: "ep-messages" }] } },
        { custom_id: "m2", body: { model: "@preset/batchy", messages: [{ role: "user", content: "ep-preset" }] } },
      ],
    });
    const responses = await submit(gw, { endpoint: "/responses", model: "acme/model-a", requests: [{ custom_id: "r1", body: { input: "ep-responses", instructions: "Be kind." } }] });
    for (const id of [messages.id, responses.id]) {
      const done = (await waitForBatch(gw, id, (b) => TERMINAL.includes(b.status))).batch;
      expect(done.status).toBe("completed");
      for (const entry of done.results!) expect(entry.response!.body.object).toBe("chat.completion");
    }
    const presetCall = upstream.requests.find((r) => JSON.stringify(r.body).includes("ep-preset"))!.body as { messages: Array<{ content: string }>; max_completion_tokens: number };
    expect(presetCall.messages[0]!.content).toBe("Preset system.");
    expect(presetCall.max_completion_tokens).toBe(9);
    const responsesCall = upstream.requests.find((r) => JSON.stringify(r.body).includes("ep-responses"))!.body as { messages: Array<{ role: string; content: string }> };
    expect(responsesCall.messages[0]).toEqual({ role: "system", content: "Be kind." });
  });
});

describe("submission is validated: every invalid request is reported, nothing is stored", () => {
  test("400 listing each bad custom_id with its reason", async () => {
    const listed = async () => ((await (await gw.request("/batches?limit=100")).json()) as { data: unknown[] }).data.length;
    const before = await listed();
    const res = await gw.request("/batches", {
      method: "POST",
      json: {
        endpoint: "/chat/completions",
        model: "acme/model-a",
        requests: [
          chatItem("good", "v-good"),
          chatItem("good", "v-dup"),
          chatItem("hot", "v-hot", { temperature: 5 }),
          chatItem("other-model", "v-model", { model: "acme/else" }),
          chatItem("streams", "v-stream", { stream: true }),
          chatItem("no-preset", "v-preset", { preset: "nope" }),
          { custom_id: "no-messages", body: { temperature: 1 } },
          { custom_id: "picture", body: { messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "https://example.com/a.png" } }] }] } },
        ],
      },
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as Envelope;
    const problems = body.error.metadata.errors as Array<{ index: number; custom_id: string; message: string }>;
    expect(problems.map((p) => [p.index, p.custom_id])).toEqual([
      [1, "good"],
      [2, "hot"],
      [3, "other-model"],
      [4, "streams"],
      [5, "no-preset"],
      [6, "no-messages"],
      [7, "picture"],
    ]);
    const reasons = Object.fromEntries(problems.map((p) => [p.index, p.message]));
    expect(reasons[1]).toContain("duplicate custom_id");
    expect(reasons[2]).toContain("temperature");
    expect(reasons[3]).toContain('differs from the batch model "acme/model-a"');
    expect(reasons[4]).toContain("stream");
    expect(reasons[5]).toContain("Preset not found: nope");
    expect(reasons[6]).toContain("messages");
    expect(reasons[7]).toContain("text-only");
    expect(body.error.message).toContain("7 of 8 requests are invalid");
    expect(await listed()).toBe(before);
    expect(upstreamCalls("v-good")).toBe(0);
  });

  test("400 for an unknown endpoint, another completion window, or no requests", async () => {
    for (const json of [
      { endpoint: "/embeddings", requests: [chatItem("a", "x")] },
      { endpoint: "/chat/completions", completion_window: "48h", requests: [chatItem("a", "x")] },
      { endpoint: "/chat/completions", requests: [] },
    ]) {
      const res = await gw.request("/batches", { method: "POST", json });
      expect(res.status).toBe(400);
      expect(((await res.json()) as Envelope).error.metadata.error_type).toBe("invalid_request");
    }
  });
});

describe("auth and workspace scoping", () => {
  test("401 without credentials (the batch endpoint's message) or with an unknown key", async () => {
    for (const res of [await gw.request("/batches", { method: "POST", key: null, json: {} }), await gw.request("/batches/batch_x", { key: null })]) {
      expect(res.status).toBe(401);
      expect(((await res.json()) as Envelope).error.message).toBe("No credentials found");
    }
    expect((await gw.request("/batches/batch_x", { key: "sk-gw-v1-unknown" })).status).toBe(401);
  });

  test("submitting is inference work: a management key gets 403; it may still read its workspace's batches", async () => {
    const res = await gw.request("/batches", { method: "POST", key: ADMIN_KEY, json: { endpoint: "/chat/completions", model: "acme/model-a", requests: [chatItem("a", "mgmt")] } });
    expect(res.status).toBe(403);
    const batch = await submit(gw, { endpoint: "/chat/completions", model: "acme/model-a", requests: [chatItem("a", "mgmt-read")] });
    expect((await getBatch(gw, batch.id, ADMIN_KEY)).id).toBe(batch.id);
  });

  test("404 for an unknown batch and for another workspace's batch", async () => {
    const unknown = await gw.request("/batches/batch_does_not_exist");
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as Envelope).error).toMatchObject({ code: 404, message: "Batch not found", metadata: { error_type: "not_found" } });
    const store = gw.gateway.deps.store;
    const other = await store.workspaces.create("other");
    const key = newSecret();
    await store.keys.create({ hash: hashSecret(key), workspaceId: other.id, name: "other", label: labelOf(key), isManagement: false, limit: null, limitReset: null, expiresAt: null });
    const mine = await submit(gw, { endpoint: "/chat/completions", model: "acme/model-a", requests: [chatItem("a", "scoped")] });
    expect((await gw.request(`/batches/${mine.id}`, { key })).status).toBe(404);
    expect((await gw.request(`/batches/${mine.id}/cancel`, { method: "POST", key })).status).toBe(404);
    expect((await gw.request(`/batches/${mine.id}`, { method: "DELETE", key })).status).toBe(404);
    expect(((await (await gw.request("/batches", { key })).json()) as { data: unknown[] }).data).toEqual([]);
  });
});
