/**
 * `defer_loading` on Responses and chat, through HTTP with the official `openai` client: the interface's rule holds
 * (a deferred tool needs `service:tool_search`, and the search tool itself cannot be deferred: a 400), and chat
 * honours it as Responses does — a deferred tool reaches the model only once the tool search found it.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import type { Script } from "../../support/scripted-model.ts";
import { MODEL, startAgentGateway, type AgentGateway } from "../agent/setup.ts";

type Json = Record<string, any>;
let agent: AgentGateway;
let client: OpenAI;

beforeAll(async () => {
  agent = await startAgentGateway(() => ({ text: "unused" }));
  client = new OpenAI({ baseURL: agent.gw.baseUrl, apiKey: agent.gw.inferenceKey, maxRetries: 0 });
});
afterAll(() => agent.close());
beforeEach(() => void (agent.upstream.bodies.length = 0));

const forecast = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };
const names = (body: Json) => (body.tools as Json[]).map((tool) => tool.function.name as string);

/** A 400 from the client, with its message. */
async function refused(call: Promise<unknown>): Promise<string> {
  const error = await call.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(OpenAI.BadRequestError);
  return (error as InstanceType<typeof OpenAI.BadRequestError>).message;
}

describe("Responses", () => {
  const deferred = { type: "function" as const, name: "get_forecast", parameters: forecast, strict: false, defer_loading: true };
  const loaded = { type: "function" as const, name: "lookup", parameters: { type: "object", properties: {} }, strict: false };

  test("the tool search itself cannot be deferred: 400 naming the entry", async () => {
    const tools = [loaded, deferred, { type: "service:tool_search", defer_loading: true }] as unknown as OpenAI.Responses.Tool[];
    const message = await refused(client.responses.create({ model: MODEL, input: "forecast?", tools }));
    expect(message).toContain("tools[2].defer_loading: the tool search tool cannot itself be deferred");
    expect(agent.upstream.bodies).toEqual([]);
  });

  test("deferring without service:tool_search is still a 400", async () => {
    const message = await refused(client.responses.create({ model: MODEL, input: "forecast?", tools: [loaded, deferred] as unknown as OpenAI.Responses.Tool[] }));
    expect(message).toContain("defer_loading requires the service:tool_search server tool");
  });
});

describe("chat", () => {
  const deferred = { type: "function", function: { name: "get_forecast", description: "Weather forecast for a city.", parameters: forecast }, defer_loading: true };
  const loaded = { type: "function", function: { name: "lookup", parameters: { type: "object", properties: {} } } };

  test("a deferred tool is withheld until service:tool_search finds it, then the model can call it", async () => {
    const script: Script = (body, index) => {
      if (index === 0) return { calls: [{ name: "tool_search", args: { query: "forecast" } }] };
      return { text: names(body).includes("get_forecast") ? "found it" : "still missing" };
    };
    agent.upstream.script = script;
    const tools = [loaded, deferred, { type: "service:tool_search" }] as unknown as OpenAI.Chat.ChatCompletionTool[];
    const completion = await client.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "forecast for Paris?" }], tools });
    expect(names(agent.upstream.bodies[0]!)).toEqual(["lookup", "tool_search"]);
    expect(names(agent.upstream.bodies[1]!)).toEqual(["lookup", "get_forecast", "tool_search"]);
    expect(completion.choices[0]!.message.content).toBe("found it");
  });

  test("defer_loading inside `function` counts too; without service:tool_search it is a 400, not silently ignored", async () => {
    const inner = { type: "function", function: { ...deferred.function, defer_loading: true } };
    for (const tool of [deferred, inner]) {
      const tools = [loaded, tool] as unknown as OpenAI.Chat.ChatCompletionTool[];
      const message = await refused(client.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "x" }], tools }));
      expect(message).toContain("defer_loading requires the service:tool_search server tool");
    }
    expect(agent.upstream.bodies).toEqual([]);
  });
});
