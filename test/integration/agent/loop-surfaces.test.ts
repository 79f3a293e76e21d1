/**
 * Server tools beyond a direct request: declared in a preset, carried by batch items (the worker runs the loop
 * without HTTP), kept alive with SSE comments while a slow tool runs, and written by a third party (a tool loaded
 * through `extensions` runs in the loop exactly like a built-in).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { ADMIN_KEY } from "../../support/gateway.ts";
import { submit, waitForBatch } from "../../unit/batches/http-support.ts";
import { callsFor, messagesOf, MODEL, startAgentGateway, type AgentGateway } from "./setup.ts";

let agent: AgentGateway;
let openai: OpenAI;

beforeAll(async () => {
  agent = await startAgentGateway(callsFor(1, [{ name: "datetime", args: { timezone: "UTC" } }], "Answered."), {
    extensions: ["./test/fixtures/extensions/test-tools.ts", "./examples/tools/word-count.ts"],
    server: { keep_alive_ms: 100 },
    batches: { poll_interval_ms: 20 },
  });
  openai = new OpenAI({ baseURL: agent.gw.baseUrl, apiKey: agent.gw.inferenceKey, maxRetries: 0 });
});
afterAll(() => agent.close());
beforeEach(() => {
  agent.upstream.bodies.length = 0;
  agent.upstream.script = callsFor(1, [{ name: "datetime", args: { timezone: "UTC" } }], "Answered.");
});

type Json = Record<string, any>;

test("a preset's server tools run the loop for requests that use it", async () => {
  const saved = await agent.gw.request("/presets/clock/chat/completions", { method: "POST", key: ADMIN_KEY, json: { model: MODEL, messages: [{ role: "user", content: "x" }], tools: [{ type: "service:datetime", parameters: { timezone: "Europe/Paris" } }] } });
  expect(saved.status).toBe(200);
  const completion = await openai.chat.completions.create({ model: "@preset/clock", messages: [{ role: "user", content: "time?" }] });
  expect(agent.upstream.bodies).toHaveLength(2);
  expect((completion.choices[0]!.message as unknown as Json).server_tool_calls[0]).toMatchObject({ type: "service:datetime", status: "completed" });
  expect(completion.choices[0]!.message.content).toBe("Answered.");
});

test("batch items may carry server tools: the worker runs each item's loop", async () => {
  const item = (id: string) => ({ custom_id: id, body: { model: MODEL, messages: [{ role: "user", content: id }], tools: [{ type: "service:datetime" }] } });
  const batch = await submit(agent.gw, { endpoint: "/chat/completions", model: MODEL, requests: [item("one"), item("two")] });
  const done = (await waitForBatch(agent.gw, batch.id, (b) => b.status === "completed")).batch;
  expect(done.results).toHaveLength(2);
  for (const entry of done.results!) {
    const body = entry.response!.body as Json;
    const message = body.choices[0].message as Json;
    expect(message.content).toBe("Answered.");
    expect(message.server_tool_calls[0].status).toBe("completed");
    expect(body.usage.prompt_tokens).toBe(200);
  }
  expect(agent.upstream.bodies).toHaveLength(4);
});

test("a slow tool's stream gets keep-alive comments while it runs", async () => {
  agent.upstream.script = callsFor(1, [{ name: "test_sleep", args: { ms: 450 } }]);
  const res = await agent.gw.request("/responses", { method: "POST", json: { model: MODEL, input: "go", stream: true, tools: [{ type: "service:test_sleep" }] } });
  const text = await res.text();
  const between = text.slice(text.indexOf("event: response.output_item.added"), text.indexOf("event: response.output_item.done"));
  expect(between.match(/^: SERVICE PROCESSING$/gm)?.length ?? 0).toBeGreaterThanOrEqual(2);
  expect(text).toContain("response.completed");
});

test("a third-party tool loaded through extensions runs in the loop like a built-in", async () => {
  agent.upstream.script = callsFor(1, [{ name: "word_count", args: { text: "three small words" } }], "Three.");
  const res = await agent.gw.request("/responses", { method: "POST", json: { model: MODEL, input: "count", tools: [{ type: "service:word_count" }] } });
  const body = (await res.json()) as Json;
  expect(res.status).toBe(200);
  expect(body.output[0]).toMatchObject({ type: "service:word_count", status: "completed" });
  expect(JSON.parse(String(messagesOf(agent.upstream, 1).at(-1)!.content))).toMatchObject({ words: 3 });
});

test("deferred tools stay hidden from the model until service:tool_search reveals them", async () => {
  const weather = { type: "function", name: "get_weather", description: "Current weather for a city", parameters: { type: "object", properties: { city: { type: "string" } } }, defer_loading: true };
  const stocks = { type: "function", name: "get_stock_price", description: "A share price", parameters: { type: "object" }, defer_loading: true };
  agent.upstream.script = (body) =>
    (body.messages as Json[]).some((m) => m.role === "tool") ? { calls: [{ name: "get_weather", args: { city: "Oslo" }, id: "call_w" }] } : { calls: [{ name: "tool_search", args: { query: "weather" } }] };
  const res = await agent.gw.request("/responses", { method: "POST", json: { model: MODEL, input: "weather in Oslo?", tools: [{ type: "service:datetime" }, { type: "service:tool_search" }, weather, stocks] } });
  const body = (await res.json()) as Json;
  expect(res.status).toBe(200);
  const offered = (i: number) => (agent.upstream.bodies[i]!.tools as Json[]).map((t) => t.function.name);
  expect(offered(0)).toEqual(["datetime", "tool_search"]);
  expect(offered(1)).toEqual(["get_weather", "datetime", "tool_search"]);
  expect(body.output.map((item: Json) => item.type)).toEqual(["service:tool_search", "function_call"]);
  expect(body.output[0].query).toBe("weather");
  expect(body.output[1]).toMatchObject({ name: "get_weather", call_id: "call_w" });
});

test("deferring without service:tool_search is a 400 on chat and Responses; Messages follows Anthropic and withholds the tool", async () => {
  const chat = await agent.gw.request("/chat/completions", {
    method: "POST",
    json: { model: MODEL, messages: [{ role: "user", content: "x" }], tools: [{ type: "function", function: { name: "f" }, defer_loading: true }, { type: "function", function: { name: "g" } }] },
  });
  expect(chat.status).toBe(400);
  expect(await chat.text()).toContain("service:tool_search");
  const responses = await agent.gw.request("/responses", { method: "POST", json: { model: MODEL, input: "x", tools: [{ type: "function", name: "f", defer_loading: true }, { type: "service:tool_search" }] } });
  expect(responses.status).toBe(400);
  expect(await responses.text()).toContain("not deferred");
  expect(agent.upstream.bodies).toHaveLength(0);
  agent.upstream.script = () => ({ text: "ok" });
  const messages = await agent.gw.request("/messages", { method: "POST", json: { model: MODEL, max_tokens: 10, messages: [{ role: "user", content: "x" }], tools: [{ name: "f", input_schema: { type: "object" }, defer_loading: true }, { name: "g", input_schema: { type: "object" } }] } });
  expect(messages.status).toBe(200);
  expect((agent.upstream.bodies[0]!.tools as Json[]).map((t) => t.function.name)).toEqual(["g"]);
});
