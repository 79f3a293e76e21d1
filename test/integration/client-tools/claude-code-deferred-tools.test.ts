/**
 * Claude Code's client-side tool search through HTTP, with the bodies it sends (test/fixtures/clients/
 * claude-code-deferred-tools.json): deferred tools and a `DeferredToolPlaceholder` with `defer_loading: true` and no
 * server tool-search tool, which Anthropic's API accepts. An Anthropic upstream gets the deferred tools and the
 * ToolSearch result's `tool_reference` blocks as they were sent; a chat upstream gets only the tools loaded so far
 * (none of the deferred ones, then the one a `tool_reference` named), the reference as a line of text. When the
 * request relies on Anthropic's own tool search, which a chat upstream cannot run, the deferred tools are sent up
 * front with a warning.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { replyOf } from "../../support/fake-upstream/fixtures.ts";
import { startFakeUpstream, type FakeUpstream } from "../../support/fake-upstream/server.ts";
import { startTestGateway, type TestGateway } from "../../support/gateway.ts";
import recorded from "../../fixtures/clients/claude-code-deferred-tools.json";

type Json = Record<string, any>;
let fake: FakeUpstream;
let gw: TestGateway;

const MODELS = { anthropic: "cc/anthropic", openai: "cc/openai" } as const;

beforeAll(async () => {
  fake = await startFakeUpstream();
  gw = await startTestGateway({
    file: {
      providers: [
        { id: "anth", adapter: "anthropic", base_url: `${fake.origin}/v1`, api_key: "sk-ant", models: [{ id: MODELS.anthropic, upstream_model: "claude-sonnet-4-5" }] },
        { id: "chat", adapter: "openai", base_url: `${fake.origin}/v1`, api_key: "sk-chat", models: [{ id: MODELS.openai, upstream_model: "gpt-4.1" }] },
      ],
      routing: { max_retries: 0 },
    },
  });
});
afterAll(async () => {
  await gw.close();
  await fake.stop();
});
beforeEach(() => fake.reset());

/** Claude Code's request `body` for `model`, sent as Claude Code sends it (its headers, `x-api-key`). */
async function claudeCode(body: Json, model: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`${gw.origin}/api/v1/messages`, {
    method: "POST",
    headers: { ...recorded.headers, "x-api-key": gw.inferenceKey, "content-type": "application/json", "x-service-metadata": "enabled" },
    body: JSON.stringify({ ...body, model }),
  });
  return { status: res.status, text: await res.text() };
}

const first = recorded.first as Json;
const afterToolSearch = { ...(recorded.afterToolSearch as Json), tools: first.tools };
const DEFERRED = ["mcp__weather__get_forecast", "DeferredToolPlaceholder"];

describe("an Anthropic upstream", () => {
  test("the first request is accepted and the deferred tools go upstream deferred, as sent", async () => {
    fake.enqueue(replyOf("anthropic", "text", true));
    const reply = await claudeCode(first, MODELS.anthropic);
    expect(reply.status).toBe(200);
    expect(reply.text).toContain("event: message_stop");
    const tools = fake.last().body.tools as Json[];
    expect(tools.map((tool) => [tool.name, tool.defer_loading])).toEqual([
      ["Bash", undefined],
      ["Read", undefined],
      ["ToolSearch", undefined],
      ["mcp__weather__get_forecast", true],
      ["DeferredToolPlaceholder", true],
    ]);
  });

  test("the ToolSearch result's tool_reference blocks reach Anthropic as they were", async () => {
    fake.enqueue(replyOf("anthropic", "text", true));
    const reply = await claudeCode(afterToolSearch, MODELS.anthropic);
    expect(reply.status).toBe(200);
    const messages = fake.last().body.messages as Json[];
    expect(messages.at(-1)).toEqual({
      role: "user",
      content: [{ type: "tool_result", tool_use_id: "toolu_01QJ8Y3w2pN6vX4zR7tK9mLb", content: [{ type: "tool_reference", tool_name: "mcp__weather__get_forecast" }] }],
    });
  });
});

describe("a chat upstream", () => {
  test("the first request is accepted; the deferred tools are withheld", async () => {
    fake.enqueue(replyOf("openai", "text", true));
    const reply = await claudeCode(first, MODELS.openai);
    expect(reply.status).toBe(200);
    const tools = fake.last().body.tools as Json[];
    expect(tools.map((tool) => tool.function.name)).toEqual(["Bash", "Read", "ToolSearch"]);
  });

  test("a tool a tool_reference named is loaded from then on; the model reads the reference as text", async () => {
    fake.enqueue(replyOf("openai", "text", true));
    const reply = await claudeCode(afterToolSearch, MODELS.openai);
    expect(reply.status).toBe(200);
    const body = fake.last().body;
    const tools = body.tools as Json[];
    expect(tools.map((tool) => tool.function.name)).toEqual(["Bash", "Read", "ToolSearch", "mcp__weather__get_forecast"]);
    expect(tools[3]).toEqual({ type: "function", function: { name: "mcp__weather__get_forecast", description: "Get the weather forecast for a city.", parameters: first.tools[3].input_schema } });
    expect((body.messages as Json[]).at(-1)).toMatchObject({ role: "tool", content: "Tools loaded: mcp__weather__get_forecast" });
  });

  test("with Anthropic's own tool search, which the chat upstream cannot run, the deferred tools are sent up front with a warning", async () => {
    fake.enqueue(replyOf("openai", "text", false));
    const tools = [...(first.tools as Json[]).filter((tool) => tool.name !== "ToolSearch"), { type: "tool_search_tool_regex_20251119", name: "tool_search_tool_regex" }];
    const reply = await claudeCode({ ...first, stream: false, tools }, MODELS.openai);
    expect(reply.status).toBe(200);
    expect((fake.last().body.tools as Json[]).map((tool) => tool.function.name)).toEqual(["Bash", "Read", ...DEFERRED]);
    const warnings = (JSON.parse(reply.text) as Json).service_metadata.warnings as Json[];
    expect(warnings.map((w) => w.field)).toContain("tools.defer_loading");
  });
});
