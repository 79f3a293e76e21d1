/**
 * The `fusion` plugin through HTTP (issue 14 item 7), against a scripted upstream whose panel models write drafts
 * (one searching the web first, through a fake SearXNG on loopback) and whose analyst answers from them: every call
 * is billed, a failing panel model does not fail the request, presets come from the config, streams carry the
 * analyst's answer with the whole bill, and the option limits are 400s.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { ADMIN_KEY, startTestGateway, type TestGateway } from "../support/gateway.ts";
import { COMPLETION_TOKENS, PROMPT_TOKENS, startScriptedModel, type ScriptedModel, type ScriptedReply } from "../support/scripted-model.ts";

type Json = Record<string, any>;
const PRICING = { prompt: 0.000001, completion: 0.000002 };
const CALL_COST = PROMPT_TOKENS * PRICING.prompt + COMPLETION_TOKENS * PRICING.completion;
const SEARCH_PRICE = 0.004;
let upstream: ScriptedModel;
let site: ReturnType<typeof Bun.serve>;
let gw: TestGateway;
const searches: string[] = [];

const isAnalyst = (body: Json) => (body.messages as Json[]).some((m) => m.role === "system" && String(m.content).includes("<draft"));
const hasToolResult = (body: Json) => (body.messages as Json[]).some((m) => m.role === "tool");
/** Panel models write `draft by <model>`; the analyst says how many drafts it read. */
function panelScript(overrides: Record<string, (body: Json) => ScriptedReply> = {}) {
  return (body: Json): ScriptedReply => {
    const model = String(body.model);
    if (isAnalyst(body)) return { text: `final from ${model} over ${String((body.messages as Json[])[0]!.content).split("<draft ").length - 1} drafts` };
    return overrides[model]?.(body) ?? { text: `draft by ${model}` };
  };
}

beforeAll(async () => {
  site = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const url = new URL(req.url);
      searches.push(url.searchParams.get("q") ?? "");
      return Response.json({ results: [{ url: "https://news.example/item", title: "Item", content: "A found fact." }] });
    },
  });
  upstream = startScriptedModel(panelScript());
  const models = ["a", "b", "c", "analyst"].map((id) => ({ id: `acme/${id}`, upstream_model: id, pricing: PRICING }));
  gw = await startTestGateway({
    file: {
      providers: [{ id: "acme", adapter: "openai", base_url: upstream.baseUrl, api_key: "k", models }],
      network: { allow_private: ["127.0.0.1/32"] },
      tools: { web_search: { engine: "searxng", base_url: `http://127.0.0.1:${site.port}`, price_per_request: SEARCH_PRICE } },
      plugins: { fusion: { presets: { "general-fast": ["acme/c"], "general-high": ["acme/a", "acme/b", "acme/c"] } } },
      server: { keep_alive_ms: 100 },
    },
  });
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
  site.stop(true);
});
beforeEach(() => {
  upstream.bodies.length = 0;
  upstream.delayMs = 0;
  upstream.script = panelScript();
  searches.length = 0;
});

async function chat(body: Json): Promise<{ status: number; json: Json }> {
  const res = await gw.request("/chat/completions", { method: "POST", json: body, headers: { "x-service-metadata": "enabled" } });
  return { status: res.status, json: (await res.json()) as Json };
}
const ask = (extra: Json = {}, plugin: Json = {}) => ({ model: "acme/analyst", messages: [{ role: "user", content: "What should I know?" }], plugins: [{ id: "fusion", ...plugin }], ...extra });
const fusionEntry = (json: Json): Json => (json.service_metadata.pipeline as Json[]).find((e) => e.name === "fusion")!;

describe("fusion", () => {
  test("the panel drafts in parallel with the web tools, the analyst answers from the drafts; every call is billed", async () => {
    const { status, json } = await chat(ask({}, { analysis_models: ["acme/a", "acme/b"] }));
    expect(status).toBe(200);
    expect(json.model).toBe("acme/analyst");
    expect(json.choices[0].message.content).toBe("final from analyst over 2 drafts");
    // The panel phase is shown before the answer, with each draft.
    const phase = json.choices[0].message.server_tool_calls[0];
    expect(phase).toMatchObject({ type: "service:fusion", status: "completed", result: { status: "ok" } });
    expect(phase.result.responses.map((r: Json) => r.model).sort()).toEqual(["acme/a", "acme/b"]);
    const panel = upstream.bodies.filter((b) => !isAnalyst(b));
    expect(panel.map((b) => b.model).sort()).toEqual(["a", "b"]);
    expect((panel[0]!.tools as Json[]).map((t) => t.function.name)).toEqual(["web_search", "web_fetch"]);
    const analyst = upstream.bodies.find(isAnalyst)!;
    expect(analyst.temperature).toBe(0);
    expect(String((analyst.messages as Json[])[0]!.content)).toContain('<draft index="1" model="acme/a">\ndraft by a\n</draft>');
    expect(json.usage.cost).toBeCloseTo(3 * CALL_COST, 10);
    expect(json.service_metadata.strategy).toBe("fusion");
    expect(fusionEntry(json)).toMatchObject({
      strategy: "fusion",
      data: { analysis_models: ["acme/a", "acme/b"], analyst_model: "acme/analyst", panels: [{ model: "acme/a", status: "completed" }, { model: "acme/b", status: "completed" }] },
    });
  });

  test("a panel model may search the web within max_tool_calls; its search is billed with the request", async () => {
    upstream.script = panelScript({ a: (body) => (hasToolResult(body) ? { text: "draft by a with a found fact" } : { calls: [{ name: "web_search", args: { query: "facts" } }] }) });
    const { json } = await chat(ask({}, { analysis_models: ["acme/a"], max_tool_calls: 1 }));
    expect(searches).toEqual(["facts"]);
    expect(json.choices[0].message.content).toBe("final from analyst over 1 drafts");
    expect(String((upstream.bodies.find(isAnalyst)!.messages as Json[])[0]!.content)).toContain("draft by a with a found fact");
    expect(json.usage.cost).toBeCloseTo(3 * CALL_COST + SEARCH_PRICE, 10);
  });

  test("one panel model failing does not fail the request; all of them failing leaves the analyst alone, said so", async () => {
    upstream.script = panelScript({ b: () => ({ status: 400, message: "bad model" }) });
    const one = await chat(ask({}, { analysis_models: ["acme/a", "acme/b"] }));
    expect(one.status).toBe(200);
    expect(one.json.choices[0].message.content).toBe("final from analyst over 1 drafts");
    expect(fusionEntry(one.json).data.panels[1]).toMatchObject({ model: "acme/b", status: "failed" });
    upstream.script = (body) => (String(body.model) === "analyst" ? { text: "alone" } : { status: 400, message: "bad model" });
    const all = await chat(ask({}, { analysis_models: ["acme/a", "acme/b"] }));
    expect(all.status).toBe(200);
    expect(all.json.choices[0].message.content).toBe("alone");
    expect(fusionEntry(all.json).data.failure_reason).toBe("all_panels_failed");
  });

  test("presets map to the config's model lists; the analyst may be named by the plugin's model option", async () => {
    const fast = await chat(ask({}, { preset: "general-fast" }));
    expect(fusionEntry(fast.json).data).toMatchObject({ preset: "general-fast", analysis_models: ["acme/c"] });
    const named = await chat({ ...ask({}, { preset: "general-high", model: "acme/a" }), model: "acme/c" });
    expect(named.json.model).toBe("acme/a");
    expect(fusionEntry(named.json).data.analysis_models).toEqual(["acme/a", "acme/b", "acme/c"]);
  });

  test("streamed: the analyst's answer arrives as a stream whose last usage carries the whole bill", async () => {
    const client = new OpenAI({ apiKey: gw.inferenceKey, baseURL: gw.baseUrl });
    const stream = await client.chat.completions.create({
      model: "acme/analyst",
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: "user", content: "What should I know?" }],
      plugins: [{ id: "fusion", analysis_models: ["acme/a", "acme/b", "acme/c"] }],
    } as never);
    let text = "";
    let cost: number | undefined;
    for await (const chunk of stream as unknown as AsyncIterable<Json>) {
      text += chunk.choices?.[0]?.delta?.content ?? "";
      if (chunk.usage) cost = chunk.usage.cost;
    }
    expect(text).toBe("final from analyst over 3 drafts");
    expect(cost).toBeCloseTo(4 * CALL_COST, 10);
  });

  test("Responses, streamed: the reply starts at once and keeps the connection alive while the panel works", async () => {
    upstream.delayMs = 350;
    const res = await gw.request("/responses", {
      method: "POST",
      json: { model: "acme/analyst", stream: true, input: "What should I know?", plugins: [{ id: "fusion", analysis_models: ["acme/a"] }] },
    });
    expect(res.status).toBe(200);
    const raw = await res.text();
    expect(raw.indexOf(": SERVICE PROCESSING")).toBeGreaterThan(-1);
    expect(raw.indexOf(": SERVICE PROCESSING")).toBeLessThan(raw.indexOf("response.created"));
    const completed = raw.split("\n\n").find((frame) => frame.includes('"type":"response.completed"'))!;
    const response = JSON.parse(completed.slice(completed.indexOf("data: ") + 6)).response;
    expect(response.model).toBe("acme/analyst");
    // The phases: the panel's drafts as a service:fusion item (it arrives as the analyst's turn begins), then the answer.
    expect(response.output[0]).toMatchObject({ type: "service:fusion", status: "completed", responses: [{ model: "acme/a", content: "draft by a" }] });
    expect(raw.indexOf('"type":"service:fusion"')).toBeLessThan(raw.indexOf("response.output_text.delta"));
    expect(response.output[1].content[0].text).toBe("final from analyst over 1 drafts");
  });

  test("a key whose limit covers one turn cannot run the panel: every panel turn holds its own worst case first", async () => {
    const created = await gw.request("/keys", { key: ADMIN_KEY, method: "POST", json: { name: "tight", limit: 0.003 } });
    const { key } = (await created.json()) as { key: string };
    const res = await gw.request("/chat/completions", { method: "POST", key, json: ask({ max_tokens: 1000 }, { analysis_models: ["acme/a", "acme/b"] }), headers: { "x-service-metadata": "enabled" } });
    expect(res.status).toBe(402);
    expect(upstream.bodies.length).toBe(0);
    const json = (await res.json()) as Json;
    expect(fusionEntry(json).data).toMatchObject({ failure_reason: "insufficient_credits", panels: [{ error_type: "payment_required" }, { error_type: "payment_required" }] });
  });

  test("limits: 1–8 analysis models, max_tool_calls 1–16, known models only", async () => {
    const nine = Array.from({ length: 9 }, () => "acme/a");
    for (const plugin of [{ analysis_models: nine }, { analysis_models: [] }, { max_tool_calls: 17 }, { max_tool_calls: 0 }, { preset: "general-max" }]) {
      const { status, json } = await chat(ask({}, plugin));
      expect(status).toBe(400);
      expect(json.error.message).toContain("plugins[0].");
    }
    const unknown = await chat(ask({}, { analysis_models: ["acme/a", "acme/nope"] }));
    expect(unknown.status).toBe(400);
    expect(unknown.json.error.message).toContain("plugins[0].analysis_models[1]");
    expect((await chat(ask({}, { analysis_models: Array.from({ length: 8 }, () => "acme/a"), max_tool_calls: 16 }))).status).toBe(200);
    expect(upstream.bodies.filter((b) => !isAnalyst(b)).length).toBe(1); // the same model twice is asked once
  });
});
