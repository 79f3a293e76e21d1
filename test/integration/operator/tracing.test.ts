/**
 * OpenTelemetry traces: a loopback OTLP collector receives the span tree of a request that falls back
 * to another model and calls a server tool, with the GenAI attributes, under the client's `traceparent`; the
 * request's `trace` field names and places spans; with the collector down, requests are unaffected and the drops
 * are counted.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startFaultUpstream, type FaultUpstream } from "../../support/fault-upstream.ts";
import { startTestGateway, type TestGateway } from "../../support/gateway.ts";
import { startOtlpCollector, type CollectedSpan, type OtlpCollector } from "../../support/otlp-collector.ts";
import { scrape } from "../../support/prometheus.ts";
import { freePort } from "../../support/free-port.ts";

let collector: OtlpCollector;
let upstream: FaultUpstream;
let gw: TestGateway;

const model = { id: "acme/x", upstream_model: "x", pricing: { prompt: 0.000001, completion: 0.000002 } };

beforeAll(async () => {
  collector = startOtlpCollector();
  upstream = startFaultUpstream("a");
  gw = await startTestGateway({
    file: {
      simulator: true,
      providers: [{ id: "prov-a", adapter: "openai", base_url: upstream.url, models: [model] }],
      routing: { max_retries: 0 },
      tracing: { endpoint: collector.url, delay_ms: 10, service_name: "gateway-under-test" },
    },
  });
});

afterAll(async () => {
  await gw.close();
  upstream.stop();
  collector.stop();
});

const CLIENT_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const CLIENT_SPAN = "00f067aa0ba902b7";

function children(spans: CollectedSpan[], parent: CollectedSpan): CollectedSpan[] {
  return spans.filter((s) => s.parentSpanId === parent.spanId).sort((a, b) => a.startMs - b.startMs || a.name.localeCompare(b.name));
}

describe("a request's span tree", () => {
  test("fallback and server tool, under the client's traceparent, with GenAI attributes", async () => {
    // acme/x fails once (prov-a 503): the turn falls back to simulator/small, which calls service:datetime; the
    // second turn goes to acme/x again, which now answers.
    upstream.script({ kind: "status", status: 503 });
    const res = await gw.request("/chat/completions", {
      method: "POST",
      headers: { traceparent: `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01` },
      json: { model: "acme/x", models: ["simulator/small"], tools: [{ type: "service:datetime" }], messages: [{ role: "user", content: "what time is it" }] },
    });
    expect(res.status).toBe(200);
    const generationId = res.headers.get("x-generation-id");
    await res.json();
    // request + 2 turns + 3 attempts + 1 tool call
    const spans = (await collector.waitFor(7)).filter((s) => s.traceId === CLIENT_TRACE);
    expect(spans).toHaveLength(7);
    const root = spans.find((s) => s.parentSpanId === CLIENT_SPAN)!;
    expect(root.name).toBe("POST /chat/completions");
    expect(root.kind).toBe(2); // SERVER
    expect(root.resource["service.name"]).toBe("gateway-under-test");
    expect(root.attributes).toMatchObject({ "gateway.generation_id": generationId, "http.response.status_code": 200, "gen_ai.request.model": "acme/x", "http.route": "/chat/completions" });
    expect(root.attributes["gateway.cost_usd"]).toBeGreaterThan(0);

    // Found by name: within one millisecond their start times may tie.
    const under = children(spans, root);
    expect(under).toHaveLength(3);
    const first = under.find((s) => s.name === "chat simulator/small");
    const tool = under.find((s) => s.name.startsWith("execute_tool"));
    const second = under.find((s) => s.name === "chat acme/x");
    expect(first!.name).toBe("chat simulator/small");
    expect(first!.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.system": "simulator",
      "gen_ai.request.model": "acme/x",
      "gen_ai.response.model": "simulator/small",
      "gen_ai.response.finish_reasons": ["tool_calls"],
      "gateway.provider": "simulator",
      "gen_ai.response.id": generationId,
    });
    expect(first!.attributes["gen_ai.usage.input_tokens"]).toBeGreaterThan(0);
    expect(first!.attributes["gen_ai.usage.output_tokens"]).toBeGreaterThan(0);
    const attempts = children(spans, first!);
    expect(first!.startMs).toBeLessThanOrEqual(tool!.startMs);
    expect(tool!.endMs).toBeLessThanOrEqual(second!.startMs);
    expect(attempts.map((a) => [a.name, a.attributes["gateway.attempt.step"], a.attributes["gateway.attempt.outcome"]])).toEqual([
      ["attempt prov-a", "first", attempts[0]!.attributes["error.type"]],
      ["attempt simulator", "fallback", "success"],
    ]);
    expect(attempts[0]!.kind).toBe(3); // CLIENT
    expect(attempts[0]!.status.code).toBe(2); // ERROR
    // The gateway's status for the upstream's 503 (provider_unavailable), and its error type.
    expect(attempts[0]!.attributes["http.response.status_code"]).toBeGreaterThanOrEqual(500);
    expect(typeof attempts[0]!.attributes["error.type"]).toBe("string");

    expect(tool!.name).toBe("execute_tool service:datetime");
    expect(tool!.attributes).toMatchObject({ "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "service:datetime" });

    expect(second!.name).toBe("chat acme/x");
    expect(second!.attributes).toMatchObject({ "gen_ai.response.model": "acme/x", "gen_ai.system": "openai", "gateway.provider": "prov-a", "gen_ai.response.finish_reasons": ["stop"] });
    expect(children(spans, second!).map((a) => a.name)).toEqual(["attempt prov-a"]);
    // Children sit inside their parent's time.
    for (const span of spans) {
      const parent = spans.find((p) => p.spanId === span.parentSpanId);
      if (parent) expect(span.startMs >= parent.startMs && span.endMs <= parent.endMs).toBe(true);
    }
  });

  test("the request's trace field: its trace id, parent span, span and generation names, other keys as attributes", async () => {
    const traceId = "0af7651916cd43dd8448eb211c80319c";
    const parent = "b7ad6b7169203331";
    const before = collector.spans.length;
    const res = await gw.request("/chat/completions", {
      method: "POST",
      json: {
        model: "simulator/small",
        messages: [{ role: "user", content: "hi" }],
        trace: { trace_id: traceId, parent_span_id: parent, span_name: "my request", generation_name: "my generation", trace_name: "nightly", team: "search" },
      },
    });
    expect(res.status).toBe(200);
    await res.json();
    const spans = (await collector.waitFor(before + 3)).slice(before).filter((s) => s.traceId === traceId);
    const root = spans.find((s) => s.parentSpanId === parent)!;
    expect(root.name).toBe("my request");
    expect(root.attributes).toMatchObject({ "gateway.trace.name": "nightly", "gateway.trace.team": "search" });
    expect(children(spans, root).map((s) => s.name)).toEqual(["my generation"]);

    // A trace id alone starts a trace of that id.
    const own = "11112222333344445555666677778888";
    const again = await gw.request("/chat/completions", { method: "POST", json: { model: "simulator/small", messages: [{ role: "user", content: "hi" }], trace: { trace_id: own } } });
    await again.json();
    const mark = collector.spans.length;
    await collector.waitFor(mark > before + 3 ? mark : before + 6);
    const started = collector.spans.filter((s) => s.traceId === own);
    expect(started.some((s) => s.parentSpanId === undefined && s.name === "POST /chat/completions")).toBe(true);
  });
});

describe("span shapes (what repeats is encoded once per combination and copied)", () => {
  test("requests of one shape keep their own ids, counts and times; a client-named span keeps its route attributes", async () => {
    const before = collector.spans.length;
    const sent: Array<{ id: string; tokens: number }> = [];
    for (const words of [3, 40]) {
      const res = await gw.request("/chat/completions", { method: "POST", json: { model: "simulator/small", messages: [{ role: "user", content: `answer [sim tokens=${words}]` }] } });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { usage: { completion_tokens: number } };
      sent.push({ id: res.headers.get("x-generation-id")!, tokens: body.usage.completion_tokens });
    }
    const named = await gw.request("/chat/completions", { method: "POST", json: { model: "simulator/small", messages: [{ role: "user", content: "hi" }], trace: { span_name: "custom" } } });
    await named.json();
    const spans = (await collector.waitFor(before + 9)).slice(before);
    for (const { id, tokens } of sent) {
      const root = spans.find((s) => s.parentSpanId === undefined && s.attributes["gateway.generation_id"] === id)!;
      expect(root.name).toBe("POST /chat/completions");
      expect(root.attributes).toMatchObject({ "http.route": "/chat/completions", "gen_ai.response.model": "simulator/small", "gen_ai.usage.output_tokens": tokens });
      const [turn] = children(spans, root);
      expect(turn!.name).toBe("chat simulator/small");
      expect(turn!.attributes).toMatchObject({ "gen_ai.response.id": id, "gen_ai.usage.output_tokens": tokens, "gen_ai.response.finish_reasons": ["stop"] });
      expect(children(spans, turn!).map((a) => [a.name, a.attributes["gateway.attempt.outcome"]])).toEqual([["attempt simulator", "success"]]);
    }
    expect(sent[0]!.tokens).not.toBe(sent[1]!.tokens);
    const custom = spans.find((s) => s.name === "custom")!;
    expect(custom.attributes).toMatchObject({ "http.route": "/chat/completions", "http.request.method": "POST", "gen_ai.request.model": "simulator/small" });
    expect(children(spans, custom)[0]!.name).toBe("chat simulator/small");
  });

  test("a model name that would read like another combination if values were joined is written as sent", async () => {
    const before = collector.spans.length;
    const odd = "simulator/small\u0001true\u0001simulator";
    const res = await gw.request("/chat/completions", { method: "POST", json: { model: odd, messages: [{ role: "user", content: "hi" }] } });
    expect(res.status).toBeGreaterThanOrEqual(400);
    await res.json();
    const spans = (await collector.waitFor(before + 1)).slice(before);
    const root = spans.find((s) => s.parentSpanId === undefined)!;
    expect(root.attributes["gen_ai.request.model"]).toBe(odd);
    expect(root.attributes["gen_ai.response.model"]).toBeUndefined();
  });
});

describe("collector down", () => {
  test("requests are unaffected; dropped spans are counted", async () => {
    const closed = `http://127.0.0.1:${await freePort()}/v1/traces`;
    const down = await startTestGateway({ file: { tracing: { endpoint: closed, delay_ms: 10, queue_size: 8, batch_size: 4 } } });
    try {
      const started = performance.now();
      for (let i = 0; i < 20; i++) {
        const res = await down.request("/chat/completions", { method: "POST", json: { model: "simulator/small", messages: [{ role: "user", content: `hi ${i}` }] } });
        expect(res.status).toBe(200);
        await res.json();
      }
      // Twenty requests on the simulator take well under a second, collector or not.
      expect(performance.now() - started).toBeLessThan(5_000);
      const deadline = Date.now() + 5_000;
      let dropped = 0;
      while (Date.now() < deadline) {
        const m = await scrape(down.origin);
        dropped = m.value("gateway_trace_spans_dropped_total");
        if (dropped >= 20) break;
        await Bun.sleep(50);
      }
      expect(dropped).toBeGreaterThanOrEqual(20);
    } finally {
      const closing = performance.now();
      await down.close();
      // The flush on shutdown is capped (two seconds), collector or not.
      expect(performance.now() - closing).toBeLessThan(4_000);
    }
  });
});
