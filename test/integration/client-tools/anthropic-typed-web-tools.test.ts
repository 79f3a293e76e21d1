/**
 * Anthropic's own typed web tools (`web_search_20250305`, `web_fetch_20250910`) from `@anthropic-ai/sdk`, through
 * HTTP: on a chat upstream and on the simulator the gateway runs its own search and fetch in their place (a loopback
 * search engine gets the query), with the typed tool's settings; on an Anthropic upstream the typed tool goes as the
 * client sent it and Anthropic's own blocks come back. A gateway with no search engine cannot stand in: the simulator
 * then says, with a warning, that the tool was not run.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import { fixture, replyOf } from "../../support/fake-upstream/fixtures.ts";
import { startFakeUpstream, type FakeUpstream } from "../../support/fake-upstream/server.ts";
import { startFakeSearchEngine, searchConfig, type FakeSearchEngine } from "../../support/fake-search-engine.ts";
import { startTestGateway, type TestGateway } from "../../support/gateway.ts";
import { startScriptedModel, type Script, type ScriptedModel } from "../../support/scripted-model.ts";

type Json = Record<string, any>;
let engine: FakeSearchEngine;
let fake: FakeUpstream;
let chat: ScriptedModel;
let gw: TestGateway;
let client: Anthropic;

const SEARCH = { type: "web_search_20250305", name: "web_search", max_uses: 3, blocked_domains: ["example.com"] } as const;
const FETCH = { type: "web_fetch_20250910", name: "web_fetch", max_uses: 2 } as const;

beforeAll(async () => {
  engine = startFakeSearchEngine();
  fake = await startFakeUpstream();
  chat = startScriptedModel(() => ({ text: "unused" }));
  gw = await startTestGateway({
    file: {
      providers: [
        { id: "chat", adapter: "openai", base_url: chat.baseUrl, api_key: "k", models: [{ id: "acme/chat", upstream_model: "m" }] },
        { id: "sim", adapter: "simulator", models: [{ id: "sim/small" }] },
        { id: "anth", adapter: "anthropic", base_url: `${fake.origin}/v1`, api_key: "sk-ant", models: [{ id: "acme/claude", upstream_model: "claude-sonnet-4-5" }] },
      ],
      routing: { max_retries: 0 },
      ...searchConfig(engine),
    },
  });
  client = new Anthropic({ baseURL: `${gw.origin}/api`, apiKey: gw.inferenceKey, maxRetries: 0 });
});
afterAll(async () => {
  await gw.close();
  await fake.stop();
  chat.stop();
  engine.stop();
});
beforeEach(() => {
  fake.reset();
  chat.bodies.length = 0;
  engine.queries.length = 0;
});

const ask = (model: string, tools: readonly Json[], extra: Json = {}) =>
  client.messages.create({ model, max_tokens: 1024, messages: [{ role: "user", content: "What happened in tech news today?" }], tools: tools as never, ...extra });

describe("a chat upstream", () => {
  test("web_search_20250305: the gateway searches (blocked_domains kept out), the client gets Anthropic's search blocks", async () => {
    const script: Script = (body) => ((body.messages as Json[]).some((m) => m.role === "tool") ? { text: "Chip makers had a record quarter." } : { calls: [{ name: "web_search", args: { query: "tech news" } }] });
    chat.script = script;
    const message = await ask("acme/chat", [SEARCH]);
    expect(engine.queries).toEqual(["tech news -site:example.com"]);
    expect((chat.bodies[0]!.tools as Json[]).map((t) => t.function.name)).toEqual(["web_search"]);
    const blocks = message.content as unknown as Json[];
    expect(blocks.map((b) => b.type)).toEqual(["server_tool_use", "web_search_tool_result", "text"]);
    expect(blocks[0]).toMatchObject({ input: { query: "tech news" } });
    expect(blocks[1]!.content.map((r: Json) => r.url)).toEqual([`${engine.origin}/news/1`, `${engine.origin}/news/2`]);
    expect(blocks[2]!.text).toBe("Chip makers had a record quarter.");
    expect((message.usage as unknown as Json).server_tool_use).toMatchObject({ web_search_requests: 1 });
  });

  test("web_fetch_20250910: the gateway fetches the page, the client gets a web_fetch_tool_result", async () => {
    const url = `${engine.origin}/news/1`;
    chat.script = (body) => ((body.messages as Json[]).some((m) => m.role === "tool") ? { text: "Fetched." } : { calls: [{ name: "web_fetch", args: { url } }] });
    const message = await ask("acme/chat", [FETCH]);
    const blocks = message.content as unknown as Json[];
    expect(blocks.map((b) => b.type)).toEqual(["server_tool_use", "web_fetch_tool_result", "text"]);
    expect(blocks[1]!.content).toMatchObject({ type: "web_fetch_result", url, content: { type: "document" } });
    expect(blocks[1]!.content.content.source.data).toContain("Chip makers reported a record quarter today.");
  });
});

test("the simulator: the gateway's search runs in place of web_search_20250305", async () => {
  const message = await ask("sim/small", [SEARCH]);
  expect(engine.queries).toHaveLength(1);
  expect((message.content as unknown as Json[]).map((b) => b.type)).toEqual(["server_tool_use", "web_search_tool_result", "text"]);
});

describe("an Anthropic upstream", () => {
  for (const stream of [false, true]) {
    test(`the typed tool goes as the client sent it and Anthropic's blocks come back${stream ? ", streamed" : ""}`, async () => {
      const wire = fixture("anthropic", "web-search").json as { content: Json[] };
      fake.enqueue(replyOf("anthropic", "web-search", stream));
      const message = stream ? await client.messages.stream({ model: "acme/claude", max_tokens: 1024, messages: [{ role: "user", content: "Shannon?" }], tools: [SEARCH] as never }).finalMessage() : await ask("acme/claude", [SEARCH]);
      expect(fake.last().body.tools).toEqual([SEARCH]);
      expect(engine.queries).toEqual([]);
      expect((message.content as unknown as Json[]).slice(1, 3)).toEqual(wire.content.slice(1, 3));
    });
  }
});

test("with no search engine configured, the simulator says it did not run web_search_20250305", async () => {
  const bare = await startTestGateway({ file: { providers: [{ id: "sim", adapter: "simulator", models: [{ id: "sim/small" }] }] } });
  try {
    const res = await bare.request("/messages", {
      method: "POST",
      headers: { "x-service-metadata": "enabled", "anthropic-version": "2023-06-01" },
      json: { model: "sim/small", max_tokens: 100, messages: [{ role: "user", content: "news?" }], tools: [SEARCH] },
    });
    const body = (await res.json()) as Json;
    expect(res.status).toBe(200);
    expect(body.service_metadata.warnings).toContainEqual(expect.objectContaining({ field: "tools[0]", message: "Server tool web_search_20250305 cannot be run by the simulator and was not sent" }));
  } finally {
    await bare.close();
  }
});
