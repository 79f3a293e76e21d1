/**
 * The agent loop through HTTP with the official clients: a server tool declared in each format is run by the gateway
 * between model turns, the model gets its result, and the client gets the finished answer with every call shown.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { startTestGateway, type TestGateway } from "../../support/gateway.ts";
import { startScriptedModel, type ScriptedModel } from "../../support/scripted-model.ts";

const MODEL = "acme/agent";
let gw: TestGateway;
let upstream: ScriptedModel;
let openai: OpenAI;

/** Turn 1 calls datetime (UTC); the turn after a tool result answers with text. */
const datetimeThenAnswer = (body: Record<string, unknown>) => {
  const messages = body.messages as Array<{ role: string }>;
  return messages.at(-1)?.role === "tool" ? { text: "It is late." } : { calls: [{ name: "datetime", args: { timezone: "UTC" } }] };
};

beforeAll(async () => {
  upstream = startScriptedModel(datetimeThenAnswer);
  gw = await startTestGateway({
    file: {
      providers: [{ id: "acme", adapter: "openai", base_url: upstream.baseUrl, api_key: "k", models: [{ id: MODEL, upstream_model: "m", pricing: { prompt: 0.000001, completion: 0.000002 }, context_length: 100000 }] }],
    },
  });
  openai = new OpenAI({ baseURL: gw.baseUrl, apiKey: gw.inferenceKey, maxRetries: 0 });
});

afterAll(async () => {
  await gw.close();
  upstream.stop();
});

beforeEach(() => {
  upstream.bodies.length = 0;
  upstream.script = datetimeThenAnswer;
});

describe("Responses", () => {
  test("the gateway runs service:datetime between two turns and shows the call before the answer", async () => {
    const response = await openai.responses.create({ model: MODEL, input: "What time is it?", tools: [{ type: "service:datetime" } as never] });
    expect(upstream.bodies).toHaveLength(2);
    // The model saw our tool as an ordinary function tool.
    const tools = upstream.bodies[0]!.tools as Array<{ type: string; function: { name: string; parameters: unknown } }>;
    expect(tools.map((t) => [t.type, t.function.name])).toEqual([["function", "datetime"]]);
    // The second turn carried the call and its result.
    const second = upstream.bodies[1]!.messages as Array<{ role: string; content?: unknown; tool_calls?: unknown[] }>;
    const result = JSON.parse(String(second.at(-1)!.content)) as { datetime: string; timezone: string };
    expect(second.at(-1)!.role).toBe("tool");
    expect(result.timezone).toBe("UTC");
    expect(result.datetime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/);
    const items = response.output as unknown as Array<Record<string, unknown>>;
    expect(items.map((item) => item.type)).toEqual(["service:datetime", "message"]);
    expect(items[0]).toMatchObject({ status: "completed", timezone: "UTC", datetime: result.datetime });
    expect(response.output_text).toBe("It is late.");
    // Usage covers both turns.
    expect(response.usage?.input_tokens).toBe(200);
    expect(response.usage?.output_tokens).toBe(40);
  });

  test("streamed: the call appears as it runs, and the completed response equals the non-streamed one", async () => {
    const stream = await openai.responses.create({ model: MODEL, input: "What time is it?", tools: [{ type: "service:datetime" } as never], stream: true });
    const types: string[] = [];
    let completed: Record<string, unknown> | undefined;
    for await (const event of stream) {
      const e = event as unknown as { type: string; item?: { type: string }; response?: Record<string, unknown> };
      types.push(e.item ? `${e.type}:${e.item.type}` : e.type);
      if (e.type === "response.completed") completed = e.response;
    }
    expect(types).toContain("response.output_item.added:service:datetime");
    expect(types.indexOf("response.output_item.done:service:datetime")).toBeLessThan(types.indexOf("response.output_item.added:message"));
    const output = completed!.output as Array<Record<string, unknown>>;
    expect(output.map((item) => item.type)).toEqual(["service:datetime", "message"]);
    expect((completed!.usage as { input_tokens: number }).input_tokens).toBe(200);
  });
});
