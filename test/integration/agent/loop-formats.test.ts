/**
 * The same loop seen from Chat Completions and Messages clients (the official SDKs), streamed and not: each executed
 * call appears in the format's own shape, in order, the streamed reply carries the same content as the non-streamed
 * one, and usage covers every turn with the server-tool counters filled.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { MODEL, startAgentGateway, type AgentGateway } from "./setup.ts";

let agent: AgentGateway;
let openai: OpenAI;
let anthropic: Anthropic;

/** Turn 1 says a word and calls datetime; the turn after the result answers. */
const script = (body: Record<string, unknown>) => {
  const messages = body.messages as Array<{ role: string }>;
  return messages.at(-1)?.role === "tool" ? { text: "It is late." } : { text: "Checking. ", calls: [{ name: "datetime", args: { timezone: "Asia/Kolkata" } }] };
};

beforeAll(async () => {
  agent = await startAgentGateway(script);
  openai = new OpenAI({ baseURL: agent.gw.baseUrl, apiKey: agent.gw.inferenceKey, maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: agent.gw.origin + "/api", apiKey: agent.gw.inferenceKey, maxRetries: 0 });
});
afterAll(() => agent.close());
beforeEach(() => {
  agent.upstream.bodies.length = 0;
});

type ServerToolCall = { id: string; type: string; status: string; arguments: string; result?: { timezone: string; datetime: string } };

describe("Chat Completions", () => {
  const tools = [{ type: "service:datetime" }] as never;

  test("the message carries the answer and the executed call; usage covers both turns with the counters", async () => {
    const completion = await openai.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "time?" }], tools });
    const message = completion.choices[0]!.message as unknown as { content: string; tool_calls?: unknown; server_tool_calls: ServerToolCall[] };
    expect(message.content).toBe("Checking. It is late.");
    expect(message.tool_calls ?? []).toEqual([]);
    expect(message.server_tool_calls).toHaveLength(1);
    expect(message.server_tool_calls[0]).toMatchObject({ type: "service:datetime", status: "completed", result: { timezone: "Asia/Kolkata" } });
    expect(completion.choices[0]!.finish_reason).toBe("stop");
    expect(completion.usage).toMatchObject({ prompt_tokens: 200, completion_tokens: 40 });
    expect((completion.usage as unknown as { server_tool_use_details: Record<string, number> }).server_tool_use_details).toMatchObject({ tool_calls_requested: 1, tool_calls_executed: 1 });
  });

  test("streamed: the same text and the call's start and end, in order", async () => {
    const stream = await openai.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "time?" }], tools, stream: true, stream_options: { include_usage: true } });
    let text = "";
    const calls: Array<Record<string, unknown>> = [];
    let usage: Record<string, unknown> | undefined;
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta as { content?: string; server_tool_calls?: Array<Record<string, unknown>> } | undefined;
      if (delta?.content) text += delta.content;
      if (delta?.server_tool_calls) calls.push(...delta.server_tool_calls.map((c) => ({ ...c, textSoFar: text })));
      if (chunk.usage) usage = chunk.usage as unknown as Record<string, unknown>;
    }
    expect(text).toBe("Checking. It is late.");
    expect(calls.map((c) => [c.status, c.textSoFar])).toEqual([
      ["in_progress", "Checking. "],
      ["completed", "Checking. "],
    ]);
    expect(usage).toMatchObject({ prompt_tokens: 200, completion_tokens: 40 });
  });
});

describe("Messages", () => {
  const tools = [{ type: "service:datetime" }] as never;

  test("server_tool_use and its result block sit between the two turns' text blocks", async () => {
    const message = await anthropic.messages.create({ model: MODEL, max_tokens: 100, messages: [{ role: "user", content: "time?" }], tools });
    const blocks = message.content as unknown as Array<Record<string, unknown>>;
    expect(blocks.map((b) => b.type)).toEqual(["text", "server_tool_use", "service_datetime_tool_result", "text"]);
    expect(blocks[1]).toMatchObject({ name: "service:datetime", input: { timezone: "Asia/Kolkata" } });
    expect(String(blocks[1]!.id)).toStartWith("srvtoolu_");
    expect(blocks[2]).toMatchObject({ tool_use_id: blocks[1]!.id, content: { timezone: "Asia/Kolkata" } });
    expect(message.stop_reason).toBe("end_turn");
    expect(message.usage).toMatchObject({ input_tokens: 200, output_tokens: 40 });
  });

  test("streamed: the same blocks as the non-streamed message", async () => {
    const plain = await anthropic.messages.create({ model: MODEL, max_tokens: 100, messages: [{ role: "user", content: "time?" }], tools });
    const stream = anthropic.messages.stream({ model: MODEL, max_tokens: 100, messages: [{ role: "user", content: "time?" }], tools });
    const final = await stream.finalMessage();
    const shape = (m: Anthropic.Message) => (m.content as unknown as Array<Record<string, unknown>>).map((b) => [b.type, b.text ?? b.name ?? null]);
    expect(shape(final)).toEqual(shape(plain));
    expect(final.usage).toMatchObject({ input_tokens: 200, output_tokens: 40 });
  });

  test("a replayed reply's server-tool blocks go upstream as the call and result the model saw", async () => {
    const first = await anthropic.messages.create({ model: MODEL, max_tokens: 100, messages: [{ role: "user", content: "time?" }], tools });
    agent.upstream.bodies.length = 0;
    await anthropic.messages.create({
      model: MODEL,
      max_tokens: 100,
      messages: [
        { role: "user", content: "time?" },
        { role: "assistant", content: first.content as never },
        { role: "user", content: "thanks" },
      ],
    });
    const sent = agent.upstream.bodies[0]!.messages as Array<{ role: string; content: unknown; tool_calls?: Array<{ function: { name: string } }> }>;
    expect(sent.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant", "user"]);
    expect(sent[1]!.tool_calls?.[0]?.function.name).toBe("datetime");
    expect(JSON.parse(String(sent[2]!.content))).toMatchObject({ timezone: "Asia/Kolkata" });
  });
});

describe("Responses", () => {
  test("a replayed service:* item without its result goes upstream as a call with a null result, not a 500", async () => {
    const response = await openai.responses.create({
      model: MODEL,
      input: [
        { role: "user", content: "time?" },
        { type: "service:datetime", id: "st_1", call_id: "call_1", status: "completed", arguments: "{}" },
        { role: "user", content: "thanks" },
      ] as never,
    });
    expect(response.status).toBe("completed");
    const sent = agent.upstream.bodies[0]!.messages as Array<{ role: string; content: unknown }>;
    expect(sent.map((m) => m.role)).toEqual(["user", "assistant", "tool", "user"]);
    expect(sent[2]!.content).toBe("null");
  });
});
