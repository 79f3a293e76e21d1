/**
 * The `fusion` plugin through HTTP, against scripted upstreams whose panel models write drafts
 * (one searching the web first, through a fake SearXNG on loopback; one on a second upstream that answers late),
 * whose analyst first compares the drafts as JSON (the structured `analysis`) and then answers from them: every call
 * is billed, a failing panel model or analysis does not fail the request, presets come from the config, streams show
 * the phase live (Responses' `response.fusion_call.*` events, the item's start and end elsewhere), and the option
 * limits are 400s.
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
/** A second upstream serving `slow/s`, which answers only after `SLOW_MS`. */
let slow: ScriptedModel;
const SLOW_MS = 500;
let site: ReturnType<typeof Bun.serve>;
let gw: TestGateway;
const searches: string[] = [];

const systemText = (body: Json) => (body.messages as Json[]).filter((m) => m.role === "system").map((m) => String(m.content)).join("\n");
/** The analysis call: the drafts, and the instruction to return the comparison as JSON. */
const isJudge = (body: Json) => systemText(body).includes("<draft") && systemText(body).includes("Return one JSON object");
/** The final answer's call: the drafts, to write the answer from. */
const isAnalyst = (body: Json) => systemText(body).includes("<draft") && !isJudge(body);
const isPanel = (body: Json) => !systemText(body).includes("<draft");
const hasToolResult = (body: Json) => (body.messages as Json[]).some((m) => m.role === "tool");
const ANALYSIS = {
  consensus: ["it is sunny"],
  contradictions: [{ topic: "tomorrow", stances: [{ model: "acme/a", stance: "rain" }, { model: "acme/b", stance: "dry" }] }],
  partial_coverage: [{ models: ["acme/a"], point: "wind" }],
  unique_insights: [{ model: "acme/b", insight: "pollen" }],
  blind_spots: ["humidity"],
};
/** The analysis as a model might write it: prose, a fence and a trailing comma, which the gateway repairs. */
const SLOPPY_ANALYSIS = `Here is my comparison:\n\`\`\`json\n${JSON.stringify(ANALYSIS).replace(/}$/, ",}")}\n\`\`\``;
/** Panel models write `draft by <model>`; the judge compares; the analyst says how many drafts it read. */
function panelScript(overrides: Record<string, (body: Json) => ScriptedReply> = {}, judge: (body: Json) => ScriptedReply = () => ({ text: SLOPPY_ANALYSIS })) {
  return (body: Json): ScriptedReply => {
    const model = String(body.model);
    if (isJudge(body)) return judge(body);
    if (isAnalyst(body)) return { text: `final from ${model} over ${systemText(body).split("<draft ").length - 1} drafts` };
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
  slow = startScriptedModel(() => ({ text: "draft by the slow one" }));
  slow.delayMs = SLOW_MS;
  const models = ["a", "b", "c", "analyst"].map((id) => ({ id: `acme/${id}`, upstream_model: id, pricing: PRICING }));
  gw = await startTestGateway({
    file: {
      providers: [
        { id: "acme", adapter: "openai", base_url: upstream.baseUrl, api_key: "k", models },
        { id: "slow", adapter: "openai", base_url: slow.baseUrl, api_key: "k", models: [{ id: "slow/s", upstream_model: "s", pricing: PRICING }] },
      ],
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
  slow.stop();
  site.stop(true);
});
beforeEach(() => {
  upstream.bodies.length = 0;
  slow.bodies.length = 0;
  upstream.delayMs = 0;
  upstream.script = panelScript();
  searches.length = 0;
});

async function chat(body: Json): Promise<{ status: number; json: Json }> {
  const res = await gw.request("/chat/completions", { method: "POST", json: body, headers: { "x-service-metadata": "enabled" } });
  return { status: res.status, json: (await res.json()) as Json };
}
/** A new inference key with a credit `limit` (USD). */
async function keyWithLimit(limit: number): Promise<string> {
  const created = await gw.request("/keys", { key: ADMIN_KEY, method: "POST", json: { name: `limit ${limit}`, limit } });
  return ((await created.json()) as { key: string }).key;
}
/** The generation record's cost of a reply (`GET /generation`). */
async function billed(id: string, key: string): Promise<number> {
  await gw.gateway.deps.ledger.flush();
  return (((await (await gw.request(`/generation?id=${id}`, { key })).json()) as Json).data as Json).total_cost as number;
}
const ask = (extra: Json = {}, plugin: Json = {}) => ({ model: "acme/analyst", messages: [{ role: "user", content: "What should I know?" }], plugins: [{ id: "fusion", ...plugin }], ...extra });
const fusionEntry = (json: Json): Json => (json.service_metadata.pipeline as Json[]).find((e) => e.name === "fusion")!;

describe("fusion", () => {
  test("the panel drafts in parallel with the web tools, the analyst compares them as JSON, then answers; every call is billed", async () => {
    const { status, json } = await chat(ask({}, { analysis_models: ["acme/a", "acme/b"] }));
    expect(status).toBe(200);
    expect(json.model).toBe("acme/analyst");
    expect(json.choices[0].message.content).toBe("final from analyst over 2 drafts");
    // The panel phase is shown before the answer, with each draft and the (repaired, checked) analysis.
    const phase = json.choices[0].message.server_tool_calls[0];
    expect(phase).toMatchObject({ type: "service:fusion", status: "completed", result: { status: "ok", analysis: ANALYSIS } });
    expect(phase.result.responses.map((r: Json) => r.model).sort()).toEqual(["acme/a", "acme/b"]);
    const panel = upstream.bodies.filter(isPanel);
    expect(panel.map((b) => b.model).sort()).toEqual(["a", "b"]);
    expect((panel[0]!.tools as Json[]).map((t) => t.function.name)).toEqual(["web_search", "web_fetch"]);
    // The analysis call: the analyst model, JSON output, no tools, temperature 0; it comes before the answer's call.
    const judge = upstream.bodies.find(isJudge)!;
    expect(judge).toMatchObject({ model: "analyst", temperature: 0, response_format: { type: "json_object" } });
    expect(judge.tools).toBeUndefined();
    expect(upstream.bodies.indexOf(judge)).toBeLessThan(upstream.bodies.findIndex(isAnalyst));
    const analyst = upstream.bodies.find(isAnalyst)!;
    expect(analyst.temperature).toBe(0);
    expect(systemText(analyst)).toContain('<draft index="1" model="acme/a">\ndraft by a\n</draft>');
    expect(systemText(analyst)).toContain(`<analysis>\n${JSON.stringify(ANALYSIS)}\n</analysis>`);
    expect(json.usage.cost).toBeCloseTo(4 * CALL_COST, 10);
    expect(json.service_metadata.strategy).toBe("fusion");
    expect(fusionEntry(json)).toMatchObject({
      strategy: "fusion",
      data: { analysis_models: ["acme/a", "acme/b"], analyst_model: "acme/analyst", analysis: "completed", panels: [{ model: "acme/a", status: "completed" }, { model: "acme/b", status: "completed" }] },
    });
  });

  test("an analysis that fails (prose, the wrong shape, an upstream error) leaves analysis out, never the request", async () => {
    const cases: Array<[ScriptedReply, string]> = [
      [{ text: "They mostly agree, I think." }, "judge_not_valid_json"],
      [{ text: JSON.stringify({ consensus: "everything", blind_spots: [] }) }, "judge_schema_mismatch"],
      [{ text: "" }, "judge_empty_completion"],
      [{ status: 400, message: "no JSON mode here" }, "judge_upstream_error"],
    ];
    for (const [reply, reason] of cases) {
      upstream.script = panelScript({}, () => reply);
      const { status, json } = await chat(ask({}, { analysis_models: ["acme/a"] }));
      expect(status).toBe(200);
      expect(json.choices[0].message.content).toBe("final from analyst over 1 drafts");
      const result = json.choices[0].message.server_tool_calls[0].result;
      expect(result).toEqual({ status: "ok", responses: [{ model: "acme/a", content: "draft by a" }] });
      expect(fusionEntry(json).data).toMatchObject({ analysis: "failed", analysis_failure: reason });
      expect(systemText(upstream.bodies.find(isAnalyst)!)).not.toContain("<analysis>");
    }
    // A missing list is an empty one; keys the schema does not know are dropped.
    upstream.script = panelScript({}, () => ({ text: JSON.stringify({ consensus: ["x"], extra: 1 }) }));
    const { json } = await chat(ask({}, { analysis_models: ["acme/a"] }));
    expect(json.choices[0].message.server_tool_calls[0].result.analysis).toEqual({ consensus: ["x"], contradictions: [], partial_coverage: [], unique_insights: [], blind_spots: [] });
  });

  test("a panel model may search the web within max_tool_calls; its search is billed with the request", async () => {
    upstream.script = panelScript({ a: (body) => (hasToolResult(body) ? { text: "draft by a with a found fact" } : { calls: [{ name: "web_search", args: { query: "facts" } }] }) });
    const { json } = await chat(ask({}, { analysis_models: ["acme/a"], max_tool_calls: 1 }));
    expect(searches).toEqual(["facts"]);
    expect(json.choices[0].message.content).toBe("final from analyst over 1 drafts");
    expect(systemText(upstream.bodies.find(isAnalyst)!)).toContain("draft by a with a found fact");
    expect(json.usage.cost).toBeCloseTo(4 * CALL_COST + SEARCH_PRICE, 10); // two panel turns, the analysis, the answer
  });

  test("one panel model failing does not fail the request; all of them failing leaves the analyst alone, said so", async () => {
    upstream.script = panelScript({ b: () => ({ status: 400, message: "bad model" }) });
    const one = await chat(ask({}, { analysis_models: ["acme/a", "acme/b"] }));
    expect(one.status).toBe(200);
    expect(one.json.choices[0].message.content).toBe("final from analyst over 1 drafts");
    expect(fusionEntry(one.json).data.panels[1]).toMatchObject({ model: "acme/b", status: "failed" });
    expect(one.json.choices[0].message.server_tool_calls[0].result.failed_models).toEqual([{ model: "acme/b", error: expect.any(String), status_code: expect.any(Number) }]);
    upstream.script = (body) => (String(body.model) === "analyst" ? { text: "alone" } : { status: 400, message: "bad model" });
    upstream.bodies.length = 0;
    const all = await chat(ask({}, { analysis_models: ["acme/a", "acme/b"] }));
    expect(all.status).toBe(200);
    expect(all.json.choices[0].message.content).toBe("alone");
    expect(fusionEntry(all.json).data.failure_reason).toBe("all_panels_failed");
    expect(upstream.bodies.some(isJudge)).toBe(false); // no drafts, nothing to compare
  });

  test("presets map to the config's model lists; the analyst may be named by the plugin's model option", async () => {
    const fast = await chat(ask({}, { preset: "general-fast" }));
    expect(fusionEntry(fast.json).data).toMatchObject({ preset: "general-fast", analysis_models: ["acme/c"] });
    const named = await chat({ ...ask({}, { preset: "general-high", model: "acme/a" }), model: "acme/c" });
    expect(named.json.model).toBe("acme/a");
    expect(fusionEntry(named.json).data.analysis_models).toEqual(["acme/a", "acme/b", "acme/c"]);
  });

  test("chat, streamed: the phase's call is shown while the panel works, its result when done, then the answer with the whole bill", async () => {
    const client = new OpenAI({ apiKey: gw.inferenceKey, baseURL: gw.baseUrl });
    const stream = await client.chat.completions.create({
      model: "acme/analyst",
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: "user", content: "What should I know?" }],
      plugins: [{ id: "fusion", analysis_models: ["acme/a", "acme/b", "slow/s"] }],
    } as never);
    let text = "";
    let cost: number | undefined;
    const calls: Array<{ at: number; delta: Json }> = [];
    for await (const chunk of stream as unknown as AsyncIterable<Json>) {
      const delta = chunk.choices?.[0]?.delta ?? {};
      if (delta.server_tool_calls) calls.push({ at: performance.now(), delta: delta.server_tool_calls[0] });
      text += delta.content ?? "";
      if (chunk.usage) cost = chunk.usage.cost;
    }
    expect(text).toBe("final from analyst over 3 drafts");
    expect(cost).toBeCloseTo(5 * CALL_COST, 10);
    expect(calls.map((c) => c.delta.status)).toEqual(["in_progress", "completed"]);
    expect(calls[0]!.delta.type).toBe("service:fusion");
    expect(calls[1]!.delta.result).toMatchObject({ status: "ok", analysis: ANALYSIS });
    // Announced at once, not when the slow panel model is done.
    expect(calls[1]!.at - calls[0]!.at).toBeGreaterThan(SLOW_MS * 0.6);
  });

  test("Responses, streamed: the reference's fusion_call events, each as it happens, on the fusion item, before the answer", async () => {
    upstream.script = panelScript({ a: () => ({ reasoning: "thinking it over", text: "draft by a" }), b: () => ({ status: 400, message: "bad model" }) });
    const client = new OpenAI({ apiKey: gw.inferenceKey, baseURL: gw.baseUrl });
    const stream = await client.responses.create({
      model: "acme/analyst",
      stream: true,
      input: "What should I know?",
      plugins: [{ id: "fusion", analysis_models: ["acme/a", "acme/b", "slow/s"] }],
    } as never);
    const events: Array<Json & { at: number }> = [];
    for await (const event of stream as unknown as AsyncIterable<Json>) events.push({ ...event, at: performance.now() });
    const types = events.map((e) => e.type as string);
    const fusion = events.filter((e) => e.type.startsWith("response.fusion_call."));
    const added = events.find((e) => e.type === "response.output_item.added")!;
    expect(added.item).toMatchObject({ type: "service:fusion", status: "in_progress" });
    // Every phase event names the fusion item and carries its place in the stream.
    const seq = events.map((e) => e.sequence_number as number);
    expect(seq).toEqual(events.map((_, index) => index));
    expect(fusion.length).toBeGreaterThan(10);
    for (const event of fusion) expect([event.item_id, event.output_index]).toEqual([added.item.id, 0]);
    const of = (type: string, model?: string) => events.findIndex((e) => e.type === `response.fusion_call.${type}` && (model === undefined || e.model === model));
    expect(of("in_progress")).toBe(types.indexOf("response.output_item.added") + 1);
    for (const model of ["acme/a", "acme/b", "slow/s"]) expect(of("panel.added", model)).toBeGreaterThan(of("in_progress"));
    expect(fusion.filter((e) => e.type === "response.fusion_call.panel.reasoning.delta").map((e) => e.delta).join("")).toBe("thinking it over");
    const deltasOf = (model: string) => fusion.filter((e) => e.type === "response.fusion_call.panel.delta" && e.model === model).map((e) => e.delta);
    expect(deltasOf("acme/a")).toEqual(["draft ", "by ", "a"]); // word by word, as the upstream streamed it
    expect(deltasOf("slow/s").join("")).toBe("draft by the slow one");
    expect(events[of("panel.completed", "acme/a")]).toMatchObject({ model: "acme/a", content: "draft by a" });
    // The reason as `message`: an `error` field would make the official client end the stream here.
    expect(events[of("panel.failed", "acme/b")]).toMatchObject({ model: "acme/b", message: expect.stringContaining("bad model"), status_code: expect.any(Number) });
    expect(events[of("panel.completed", "slow/s")]).toMatchObject({ content: "draft by the slow one" });
    // Live: the fast model's draft reached the client while the slow one was still writing.
    expect(of("panel.delta", "acme/a")).toBeLessThan(of("panel.completed", "slow/s"));
    expect(events[of("panel.completed", "slow/s")]!.at - events[of("panel.delta", "acme/a")]!.at).toBeGreaterThan(SLOW_MS * 0.6);
    // Then the analysis, the phase's end, the item done with the whole result, and only then the answer.
    expect(of("analysis.in_progress")).toBeGreaterThan(of("panel.completed", "slow/s"));
    expect(events[of("analysis.in_progress")]).toMatchObject({ analyst_model: "acme/analyst", judge_model: "acme/analyst" });
    expect(events[of("analysis.completed")]).toMatchObject({ analysis: ANALYSIS });
    expect(of("completed")).toBe(of("analysis.completed") + 1);
    const done = events.findIndex((e) => e.type === "response.output_item.done" && e.item.type === "service:fusion");
    expect(done).toBe(of("completed") + 1);
    expect(events[done]!.item).toMatchObject({ status: "completed", analysis: ANALYSIS, failed_models: [{ model: "acme/b" }] });
    expect(events[done]!.item.responses.map((r: Json) => r.model).sort()).toEqual(["acme/a", "slow/s"]);
    expect(types.indexOf("response.output_text.delta")).toBeGreaterThan(done);
    const completed = events.at(-1)!;
    expect(completed.type).toBe("response.completed");
    expect(completed.response.output[0]).toMatchObject({ type: "service:fusion", analysis: ANALYSIS });
    expect(completed.response.output[1].content[0].text).toBe("final from analyst over 2 drafts");
    expect(completed.response.model).toBe("acme/analyst");
  });

  test("Messages, streamed: the fusion call's block opens while the panel works, its result block follows it", async () => {
    const res = await gw.request("/messages", {
      method: "POST",
      json: { model: "acme/analyst", max_tokens: 200, stream: true, messages: [{ role: "user", content: "What should I know?" }], plugins: [{ id: "fusion", analysis_models: ["slow/s"] }] },
    });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let raw = "";
    let useAt: number | undefined;
    let resultAt: number | undefined;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      raw += decoder.decode(value, { stream: true });
      if (useAt === undefined && raw.includes('"server_tool_use"')) useAt = performance.now();
      if (resultAt === undefined && raw.includes('"service_fusion_tool_result"')) resultAt = performance.now();
    }
    expect(resultAt! - useAt!).toBeGreaterThan(SLOW_MS * 0.6);
    expect(raw.indexOf('"service_fusion_tool_result"')).toBeLessThan(raw.indexOf('"text_delta"'));
    expect(raw).toContain('"consensus"');
  });

  test("Responses, streamed: the reply starts at once and keeps the connection alive while the slow panel works", async () => {
    const res = await gw.request("/responses", {
      method: "POST",
      json: { model: "acme/analyst", stream: true, input: "What should I know?", plugins: [{ id: "fusion", analysis_models: ["slow/s"] }] },
    });
    expect(res.status).toBe(200);
    const raw = await res.text();
    const added = raw.indexOf("response.fusion_call.panel.added");
    expect(raw.indexOf("response.created")).toBeLessThan(added);
    const alive = raw.indexOf(": SERVICE PROCESSING", added);
    expect(alive).toBeGreaterThan(-1);
    expect(alive).toBeLessThan(raw.indexOf("response.fusion_call.panel.completed"));
  });

  test("a client leaving while the panel works: the analysis and the answer are never asked for", async () => {
    const controller = new AbortController();
    const res = await gw.request("/responses", {
      method: "POST",
      signal: controller.signal,
      json: { model: "acme/analyst", stream: true, input: "What should I know?", plugins: [{ id: "fusion", analysis_models: ["acme/a", "slow/s"] }] },
    });
    const reader = res.body!.getReader();
    let raw = "";
    while (!raw.includes('"model":"acme/a","content"')) raw += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    await Bun.sleep(SLOW_MS + 200);
    expect(upstream.bodies.filter(isPanel).length).toBe(1);
    expect(upstream.bodies.filter((b) => isJudge(b) || isAnalyst(b))).toEqual([]);
    expect((await chat(ask({}, { analysis_models: ["acme/a"] }))).status).toBe(200); // and the gateway carries on
  });

  test("a key whose limit covers one turn cannot run the panel: every panel turn holds its own worst case first; the answer's turn was reserved", async () => {
    const key = await keyWithLimit(0.003);
    const res = await gw.request("/chat/completions", { method: "POST", key, json: ask({ max_tokens: 1000 }, { analysis_models: ["acme/a", "acme/b"] }), headers: { "x-service-metadata": "enabled" } });
    // The reservation the request made before anything ran is its answer's: the analyst answers alone, as when
    // every panel model failed, and the reply says why (the reference's `insufficient_credits`).
    expect(res.status).toBe(200);
    const json = (await res.json()) as Json;
    expect(upstream.bodies.map((b) => b.model)).toEqual(["analyst"]);
    expect(fusionEntry(json).data).toMatchObject({ failure_reason: "insufficient_credits", panels: [{ error_type: "payment_required" }, { error_type: "payment_required" }] });
    expect(json.usage.cost).toBeCloseTo(CALL_COST, 10);
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
    expect(upstream.bodies.filter(isPanel).length).toBe(1); // the same model twice is asked once
  });
});

describe("fusion: usage and credit add up like the cost", () => {
  test("usage counts every call's tokens, as its cost counts every call (openai client: chat not streamed and streamed, Responses)", async () => {
    const client = new OpenAI({ apiKey: gw.inferenceKey, baseURL: gw.baseUrl, maxRetries: 0 });
    const body = { model: "acme/analyst", messages: [{ role: "user" as const, content: "What should I know?" }], plugins: [{ id: "fusion", analysis_models: ["acme/a", "acme/b"] }] };
    // Two drafts, the analysis and the answer: four calls of PROMPT_TOKENS in and COMPLETION_TOKENS out.
    const whole = await client.chat.completions.create(body as never);
    expect(whole.usage).toMatchObject({ prompt_tokens: 4 * PROMPT_TOKENS, completion_tokens: 4 * COMPLETION_TOKENS, total_tokens: 4 * (PROMPT_TOKENS + COMPLETION_TOKENS) });
    expect((whole.usage as unknown as Json).cost).toBeCloseTo(4 * CALL_COST, 10);
    const stream = await client.chat.completions.create({ ...body, stream: true, stream_options: { include_usage: true } } as never);
    let usage: Json | undefined;
    for await (const chunk of stream as unknown as AsyncIterable<Json>) if (chunk.usage) usage = chunk.usage;
    expect(usage).toMatchObject({ prompt_tokens: 4 * PROMPT_TOKENS, completion_tokens: 4 * COMPLETION_TOKENS });
    expect(usage!.cost).toBeCloseTo(4 * CALL_COST, 10);
    const responses = await client.responses.create({ model: "acme/analyst", input: "What should I know?", plugins: [{ id: "fusion", analysis_models: ["acme/a"] }] } as never);
    expect(responses.usage).toMatchObject({ input_tokens: 3 * PROMPT_TOKENS, output_tokens: 3 * COMPLETION_TOKENS });
  });

  test("the panel spending what the analysis then cannot get: the answer still comes (its turn was reserved first), billed what it used", async () => {
    // 0.006 covers the request's own reservation and one panel turn's hold, not the analysis's (~0.009) nor a
    // second hold for the answer: before, the answer's turn was refused (402) after the panel had been billed.
    const key = await keyWithLimit(0.006);
    const res = await gw.request("/chat/completions", { method: "POST", key, json: ask({ max_tokens: 1000 }, { analysis_models: ["acme/a"] }), headers: { "x-service-metadata": "enabled" } });
    const json = (await res.json()) as Json;
    expect(res.status).toBe(200);
    expect(json.choices[0].message.content).toBe("final from analyst over 1 drafts");
    expect(fusionEntry(json).data).toMatchObject({ analysis: "failed", analysis_failure: "judge_upstream_error" });
    expect(upstream.bodies.filter(isJudge)).toEqual([]);
    expect(json.usage).toMatchObject({ prompt_tokens: 2 * PROMPT_TOKENS, completion_tokens: 2 * COMPLETION_TOKENS });
    expect(json.usage.cost).toBeCloseTo(2 * CALL_COST, 10);
    expect(await billed(res.headers.get("x-generation-id")!, key)).toBeCloseTo(2 * CALL_COST, 10);
  });

  test("an analyst other than the request's model reserves its turn before the panel runs: never a 402 billed after the panel spent", async () => {
    // The request's own reservation is sized for acme/c; the analyst (the plugin's model option) reserves its own
    // turn in `pre`. 0.005 covers those two and not a third turn's hold: the panel model is left out, the analyst
    // answers. Before, the panel ran on that room and the analyst's turn was then the 402, the panel billed.
    const key = await keyWithLimit(0.005);
    const body = ask({ model: "acme/c", max_tokens: 1000 }, { analysis_models: ["acme/a"], model: "acme/analyst" });
    const res = await gw.request("/chat/completions", { method: "POST", key, json: body, headers: { "x-service-metadata": "enabled" } });
    const json = (await res.json()) as Json;
    expect(res.status).toBe(200);
    expect(upstream.bodies.map((b) => b.model)).toEqual(["analyst"]);
    expect(fusionEntry(json).data).toMatchObject({ analyst_model: "acme/analyst", failure_reason: "insufficient_credits", panels: [{ error_type: "payment_required" }] });
    expect(json.usage.cost).toBeCloseTo(CALL_COST, 10);
    expect(await billed(res.headers.get("x-generation-id")!, key)).toBeCloseTo(CALL_COST, 10);

    // A key that cannot cover the analyst's turn beside the request's own: the 402 comes before anything ran.
    upstream.bodies.length = 0;
    const short = await keyWithLimit(0.003);
    const refused = await gw.request("/chat/completions", { method: "POST", key: short, json: body });
    expect(refused.status).toBe(402);
    expect(upstream.bodies).toEqual([]);
    expect(await billed(refused.headers.get("x-generation-id")!, short)).toBe(0);
  });

  test("4 concurrent fusion requests on a key with $0.022: a 402 is never billed, a reply is billed its usage.cost, the key never overspends", async () => {
    const key = await keyWithLimit(0.022);
    const one = () => gw.request("/chat/completions", { method: "POST", key, json: ask({ max_tokens: 1000 }, { analysis_models: ["acme/a", "acme/b"] }) });
    const replies = await Promise.all([one(), one(), one(), one()]);
    let total = 0;
    for (const res of replies) {
      const json = (await res.json()) as Json;
      const cost = await billed(res.headers.get("x-generation-id")!, key);
      total += cost;
      expect([200, 402]).toContain(res.status);
      if (res.status === 402) expect(cost).toBe(0);
      else expect(cost).toBeCloseTo(json.usage.cost, 10);
    }
    expect(replies.filter((r) => r.status === 200).length).toBeGreaterThan(0);
    expect(total).toBeLessThanOrEqual(0.022);
    const me = (await (await gw.request("/key", { key })).json()) as { data: { usage: number } };
    expect(me.data.usage).toBeCloseTo(total, 10);
  });
});
