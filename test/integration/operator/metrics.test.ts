/**
 * `GET /metrics` after known traffic: exact request counts and token sums, attempts, a retry and a
 * fallback, a server-tool call, time to first token, refusals at the edge with bounded labels, and a text that a
 * Prometheus text-format parser reads. The bearer token of `metrics.token` is asked for when set.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startFaultUpstream, type FaultUpstream } from "../../support/fault-upstream.ts";
import { startTestGateway, type TestGateway } from "../../support/gateway.ts";
import { scrape } from "../../support/prometheus.ts";

let gw: TestGateway;
let a: FaultUpstream;
let b: FaultUpstream;

const chat = (body: Record<string, unknown>, key?: string | null) =>
  gw.request("/chat/completions", { method: "POST", json: body, ...(key !== undefined ? { key } : {}) });

beforeAll(async () => {
  a = startFaultUpstream("a");
  b = startFaultUpstream("b");
  const model = (id: string) => ({ id, upstream_model: "x", pricing: { prompt: 0.000001, completion: 0.000002 } });
  gw = await startTestGateway({
    file: {
      simulator: true,
      providers: [
        { id: "prov-a", adapter: "openai", base_url: a.url, models: [model("acme/x")] },
        { id: "prov-b", adapter: "openai", base_url: b.url, models: [model("acme/x")] },
      ],
      routing: { max_retries: 1, backoff_base_ms: 1, backoff_max_ms: 2 },
    },
  });
});

afterAll(async () => {
  await gw.close();
  a.stop();
  b.stop();
});

describe("metrics after known traffic", () => {
  test("counts, tokens, attempts, retries, fallbacks, tools and edge refusals are exact", async () => {
    let input = 0;
    let output = 0;
    for (let i = 0; i < 3; i++) {
      const res = await chat({ model: "simulator/small", messages: [{ role: "user", content: `hello ${i} [sim tokens=${5 + i}]` }] });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { usage: { prompt_tokens: number; completion_tokens: number } };
      input += body.usage.prompt_tokens;
      output += body.usage.completion_tokens;
    }
    // A stream: time to first token.
    const streamed = await chat({ model: "simulator/small", stream: true, messages: [{ role: "user", content: "stream please [sim tokens=4]" }] });
    expect(streamed.status).toBe(200);
    await streamed.text();
    // prov-a fails twice (the attempt and its retry), then prov-b serves: one retry, one fallback.
    a.script({ kind: "status", status: 503 }, { kind: "status", status: 503 });
    const fellBack = await chat({ model: "acme/x", provider: { order: ["prov-a", "prov-b"] }, messages: [{ role: "user", content: "hi" }] });
    expect(fellBack.status).toBe(200);
    // A server tool: the simulator calls service:datetime, the gateway runs it, the simulator answers.
    const tooled = await chat({ model: "simulator/small", tools: [{ type: "service:datetime" }], messages: [{ role: "user", content: "what time is it" }] });
    expect(tooled.status).toBe(200);
    // Refused before the pipeline, or by it: bounded labels only.
    expect((await chat({ model: "simulator/small", messages: [{ role: "user", content: "x" }] }, null)).status).toBe(401);
    const unknown = (await chat({ model: "no-such/model-a1b2c3", messages: [{ role: "user", content: "x" }] })).status;
    expect(unknown).toBe(400);
    expect((await chat({ model: "simulator/small", messages: "not a list" })).status).toBe(400);

    const m = await scrape(gw.origin);
    const ok = { route: "/chat/completions", model: "simulator/small", provider: "simulator", status: "200" };
    // 3 plain + 1 streamed; the tool request is the fifth on simulator/small.
    expect(m.value("gateway_requests_total", ok)).toBe(5);
    expect(m.count("gateway_request_duration_seconds", ok)).toBe(5);
    expect(m.count("gateway_time_to_first_token_seconds", { model: "simulator/small" })).toBe(1);
    expect(m.value("gateway_requests_total", { model: "acme/x", provider: "prov-b", status: "200" })).toBe(1);

    // Tokens: the three plain requests' reported usage, plus what the others used (read from the generation log).
    await gw.gateway.deps.ledger.flush();
    const log = (await (await gw.request("/generations?limit=50", { key: "test-admin-key-0123456789" })).json()) as { data: Array<{ model: string; tokens_prompt: number; tokens_completion: number; total_cost: number }> };
    const sums = (model: string) => log.data.filter((g) => g.model === model).reduce((s, g) => ({ in: s.in + g.tokens_prompt, out: s.out + g.tokens_completion }), { in: 0, out: 0 });
    expect(sums("simulator/small").in).toBeGreaterThan(input);
    expect(m.value("gateway_tokens_total", { model: "simulator/small", kind: "input" })).toBe(sums("simulator/small").in);
    expect(m.value("gateway_tokens_total", { model: "simulator/small", kind: "output" })).toBe(sums("simulator/small").out);
    expect(output).toBeGreaterThan(0);
    const acme = sums("acme/x");
    expect(m.value("gateway_tokens_total", { model: "acme/x", provider: "prov-b", kind: "input" })).toBe(acme.in);
    expect(m.value("gateway_cost_usd_total", { model: "acme/x", provider: "prov-b" })).toBeCloseTo(acme.in * 0.000001 + acme.out * 0.000002, 12);

    expect(m.value("gateway_upstream_attempts_total", { model: "acme/x", provider: "prov-a" })).toBe(2);
    expect(m.value("gateway_upstream_attempts_total", { model: "acme/x", provider: "prov-a", outcome: "success" })).toBe(0);
    expect(m.value("gateway_upstream_attempts_total", { model: "acme/x", provider: "prov-b", outcome: "success" })).toBe(1);
    expect(m.value("gateway_upstream_retries_total", { model: "acme/x", provider: "prov-a" })).toBe(1);
    expect(m.value("gateway_fallbacks_total", { model: "acme/x", provider: "prov-a" })).toBe(1);
    expect(a.requests.length).toBe(2);

    // (The simulator fills the timezone argument with a word, so the call ends as a failed one: counted all the same.)
    expect(m.value("gateway_server_tool_calls_total", { tool: "service:datetime" })).toBe(1);
    expect(m.count("gateway_server_tool_duration_seconds", { tool: "service:datetime" })).toBe(1);
    expect(m.value("gateway_pipeline_actions_total", { type: "server_tools", name: "agent-loop" })).toBe(1);

    // Every HTTP request by route template, including those refused before the pipeline.
    expect(m.value("gateway_http_requests_total", { method: "POST", route: "/api/v1/chat/completions", status: "401" })).toBe(1);
    // The schema's 400 (no context) and the unknown model's (refused by routing, inside the pipeline).
    expect(m.value("gateway_http_requests_total", { method: "POST", route: "/api/v1/chat/completions", status: "400" })).toBe(2);
    expect(m.value("gateway_requests_total", { route: "/chat/completions", model: "other", provider: "none", status: "400" })).toBe(1);
    expect(m.value("gateway_http_requests_total", { method: "POST", route: "/api/v1/chat/completions", status: "200" })).toBe(6);
    // The unknown model never becomes a label value.
    const text = await (await fetch(`${gw.origin}/metrics`)).text();
    expect(text).not.toContain("a1b2c3");
    expect(text).not.toContain(gw.inferenceKeyHash);

    // Scrape-time gauges.
    expect(m.value("gateway_open_streams")).toBe(0);
    expect(m.value("gateway_breaker_state", { model: "acme/x", provider: "prov-b", state: "closed" })).toBe(1);
    expect(m.samples("gateway_batch_queue_items", { status: "pending" }).length).toBe(1);
    expect(m.value("gateway_process_resident_memory_bytes")).toBeGreaterThan(1e6);
    expect(m.family("gateway_event_loop_lag_seconds")?.type).toBe("HISTOGRAM");
  });
});

describe("the metrics token", () => {
  test("asked for when configured, open otherwise", async () => {
    const guarded = await startTestGateway({ file: { metrics: { token: "scrape-secret" } } });
    try {
      expect((await fetch(`${guarded.origin}/metrics`)).status).toBe(401);
      expect((await fetch(`${guarded.origin}/metrics`, { headers: { authorization: "Bearer wrong" } })).status).toBe(401);
      const ok = await fetch(`${guarded.origin}/metrics`, { headers: { authorization: "Bearer scrape-secret" } });
      expect(ok.status).toBe(200);
      expect(ok.headers.get("content-type")).toContain("text/plain");
    } finally {
      await guarded.close();
    }
    expect((await fetch(`${gw.origin}/metrics`)).status).toBe(200);
  });

  test("metrics.enabled false: 404, and nothing is counted", async () => {
    const off = await startTestGateway({ file: { metrics: { enabled: false } } });
    try {
      expect(off.gateway.deps.observer).toBeUndefined();
      expect((await fetch(`${off.origin}/metrics`)).status).toBe(404);
    } finally {
      await off.close();
    }
  });
});
