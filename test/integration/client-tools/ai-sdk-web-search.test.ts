/**
 * The AI SDK's OpenAI provider with its web search tool (`openai.tools.webSearch()`), through HTTP with the bodies it
 * sends (test/fixtures/clients/ai-sdk-openai-responses.json): OpenAI's hosted `{"type": "web_search"}` runs as the
 * gateway's own search against a loopback search engine, whatever the upstream (here a chat model), and comes back
 * as OpenAI's `web_search_call` item with its sources, which the AI SDK parses; every `include` value the Responses
 * API defines is accepted (`message.output_text.logprobs` asks the upstream for logprobs).
 */
import { afterAll, beforeAll, beforeEach, expect, test } from "bun:test";
import OpenAI from "openai";
import { startFakeSearchEngine, searchConfig, type FakeSearchEngine } from "../../support/fake-search-engine.ts";
import type { Script } from "../../support/scripted-model.ts";
import { startAgentGateway, type AgentGateway } from "../agent/setup.ts";
import fixture from "../../fixtures/clients/ai-sdk-openai-responses.json";

type Json = Record<string, any>;
let agent: AgentGateway;
let engine: FakeSearchEngine;

beforeAll(async () => {
  engine = startFakeSearchEngine();
  agent = await startAgentGateway(() => ({ text: "unused" }), searchConfig(engine));
});
afterAll(async () => {
  await agent.close();
  engine.stop();
});
beforeEach(() => {
  agent.upstream.bodies.length = 0;
  engine.queries.length = 0;
});

/** Searches once, then answers from what it found. */
const searcher: Script = (body) => {
  const searched = (body.messages as Json[]).some((m) => m.role === "tool");
  return searched ? { text: "Chip makers reported a record quarter." } : { calls: [{ name: "web_search", args: { query: "tech news today" } }] };
};

/**
 * What the AI SDK's response schema requires of the items it gets (its `openaiResponsesResponseSchema` is a
 * discriminated union on `type`: an item of a type it does not list fails the whole reply).
 */
function aiSdkParses(item: Json): boolean {
  switch (item.type) {
    case "message":
      return item.role === "assistant" && typeof item.id === "string" && (item.content as Json[]).every((c) => c.type === "output_text" && typeof c.text === "string" && Array.isArray(c.annotations));
    case "web_search_call": {
      const action = item.action as Json | undefined;
      const sources = (action?.sources ?? []) as Json[];
      return typeof item.id === "string" && typeof item.status === "string" && action?.type === "search" && sources.every((s) => s.type === "url" && typeof s.url === "string");
    }
    default:
      return false;
  }
}

test("generateText with openai.tools.webSearch(): 200, the search ran, the reply is a web_search_call with its sources and the answer", async () => {
  agent.upstream.script = searcher;
  const res = await agent.gw.request("/responses", { method: "POST", json: fixture.webSearch });
  const body = (await res.json()) as Json;
  expect(res.status).toBe(200);
  // The domain the client blocked (filters.blocked_domains) is kept out by the engine's query.
  expect(engine.queries).toEqual(["tech news today -site:example.com"]);
  // The upstream model saw the search as a function.
  expect((agent.upstream.bodies[0]!.tools as Json[]).map((t) => t.function.name)).toEqual(["web_search"]);
  const output = body.output as Json[];
  expect(output.map((item) => item.type)).toEqual(["web_search_call", "message"]);
  expect(output.every(aiSdkParses)).toBe(true);
  expect(output[0]).toEqual({
    type: "web_search_call",
    id: expect.any(String),
    status: "completed",
    action: { type: "search", query: "tech news today", sources: [{ type: "url", url: `${engine.origin}/news/1` }, { type: "url", url: `${engine.origin}/news/2` }] },
  });
  expect(output[1]!.content[0].text).toBe("Chip makers reported a record quarter.");
  expect(body.usage.server_tool_use_details).toMatchObject({ web_search_requests: 1 });
});

test("streamText: the web_search_call is announced in progress, then done with its sources; response.completed carries the same items", async () => {
  agent.upstream.script = searcher;
  const res = await agent.gw.request("/responses", { method: "POST", json: { ...fixture.webSearch, stream: true } });
  expect(res.status).toBe(200);
  const events = (await res.text())
    .split("\n")
    .filter((line) => line.startsWith("data: ") && line !== "data: [DONE]")
    .map((line) => JSON.parse(line.slice(6)) as Json);
  const added = events.find((e) => e.type === "response.output_item.added" && e.item.type === "web_search_call");
  const done = events.find((e) => e.type === "response.output_item.done" && e.item.type === "web_search_call");
  expect(added?.item).toMatchObject({ status: "in_progress", action: { type: "search", query: "tech news today" } });
  expect(done?.item).toMatchObject({ id: added!.item.id, status: "completed", action: { sources: [{ url: `${engine.origin}/news/1` }, { url: `${engine.origin}/news/2` }] } });
  const completed = events.find((e) => e.type === "response.completed")!.response as Json;
  expect((completed.output as Json[]).every(aiSdkParses)).toBe(true);
  expect(engine.queries).toEqual(["tech news today -site:example.com"]);
});

test("the official openai client: web_search_preview and a forced web_search tool_choice run the gateway's search too", async () => {
  agent.upstream.script = searcher;
  const client = new OpenAI({ baseURL: agent.gw.baseUrl, apiKey: agent.gw.inferenceKey, maxRetries: 0 });
  const response = await client.responses.create({
    model: "acme/agent",
    input: "What happened in tech news today?",
    tools: [{ type: "web_search_preview", search_context_size: "low" }],
    tool_choice: { type: "web_search_preview" },
    include: ["web_search_call.action.sources", "web_search_call.results"],
  });
  expect(response.output.map((item) => item.type)).toEqual(["web_search_call", "message"]);
  expect(agent.upstream.bodies[0]!.tool_choice).toEqual({ type: "function", function: { name: "web_search" } });
  expect(engine.queries).toEqual(["tech news today"]);
});

test("include message.output_text.logprobs (the AI SDK's logprobs option) is accepted and asks the upstream for logprobs", async () => {
  agent.upstream.script = () => ({ text: "Hello." });
  const res = await agent.gw.request("/responses", { method: "POST", json: fixture.logprobs });
  expect(res.status).toBe(200);
  expect(agent.upstream.bodies[0]).toMatchObject({ logprobs: true, top_logprobs: 2 });
});

test("an include value the Responses API does not define is a 400 naming the entry and listing the values", async () => {
  const res = await agent.gw.request("/responses", { method: "POST", json: { ...fixture.logprobs, include: ["message.output_text.logprobs", "web_search_call.sources"] } });
  expect(res.status).toBe(400);
  const message = ((await res.json()) as Json).error.message as string;
  expect(message).toStartWith('include[1]: "web_search_call.sources" is not an include value');
  expect(message).toContain("web_search_call.action.sources");
});
