/**
 * The context-compression plugin through HTTP, against a fake upstream that records what it is
 * sent: long histories are cut from the middle to fit the chosen endpoint's window minus `max_tokens` (on by default
 * for windows of 8,192 tokens or less, on request for any), tool calls and results go as pairs, and a prompt that
 * cannot be made to fit is a 400 `context_length_exceeded`.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { startScriptedModel, type ScriptedModel } from "../support/scripted-model.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";

let upstream: ScriptedModel;
let gw: TestGateway;
let openai: OpenAI;

beforeAll(async () => {
  upstream = startScriptedModel(() => ({ text: "ok" }));
  const model = (id: string, context: number) => ({ id, upstream_model: "m", pricing: { prompt: 0.000001, completion: 0.000002 }, context_length: context });
  gw = await startTestGateway({
    file: { providers: [{ id: "acme", adapter: "openai", base_url: upstream.baseUrl, api_key: "k", models: [model("acme/small", 2_048), model("acme/large", 20_000)] }] },
  });
  openai = new OpenAI({ baseURL: gw.baseUrl, apiKey: gw.inferenceKey, maxRetries: 0, defaultHeaders: { "x-service-metadata": "enabled" } });
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
});

type ChatMessage = { role: string; content?: string | null; tool_calls?: unknown[]; tool_call_id?: string };

/** `turns` user/assistant pairs of ~`words` words each, numbered, then a final question. */
function history(turns: number, words = 60): ChatMessage[] {
  const filler = "the quick brown fox jumps over the lazy dog ".repeat(Math.ceil(words / 9));
  const messages: ChatMessage[] = [];
  for (let i = 0; i < turns; i++) {
    messages.push({ role: "user", content: `question ${i}: ${filler}` });
    messages.push({ role: "assistant", content: `answer ${i}: ${filler}` });
  }
  messages.push({ role: "user", content: "final question?" });
  return messages;
}

const sentMessages = () => upstream.bodies.at(-1)!.messages as ChatMessage[];
const labels = (messages: ChatMessage[]) => messages.map((m) => (typeof m.content === "string" ? m.content.split(":")[0] : m.role));

async function chat(body: Record<string, unknown>) {
  const res = await gw.request("/chat/completions", { method: "POST", json: body, headers: { "x-service-metadata": "enabled" } });
  const json = (await res.json()) as {
    service_metadata?: { pipeline?: Array<Record<string, unknown>> };
    error?: { message: string; metadata: Record<string, unknown> };
  };
  return { status: res.status, json, entries: (json.service_metadata?.pipeline ?? []).filter((e) => e.name === "context-compression") };
}

describe("default: on for endpoints of 8,192 tokens or less", () => {
  test("a history too long for a 2,048-token window loses its middle; system, first and last turns stay", async () => {
    const messages = [{ role: "system", content: "You are terse." }, ...history(40)];
    const completion = await openai.chat.completions.create({ model: "acme/small", messages: messages as never });
    expect(completion.choices[0]!.message.content).toBe("ok");
    const sent = sentMessages();
    expect(sent.length).toBeLessThan(messages.length);
    expect(sent[0]).toEqual({ role: "system", content: "You are terse." });
    expect(labels(sent).slice(1, 3)).toEqual(["question 0", "answer 0"]);
    expect(labels(sent).at(-1)).toBe("final question?");
    expect(labels(sent).at(-2)).toBe("answer 39");
    const entry = ((completion as unknown as { service_metadata: { pipeline: Array<Record<string, unknown>> } }).service_metadata.pipeline).find((e) => e.name === "context-compression")!;
    expect(entry).toMatchObject({ type: "plugin", engine: "middle-out", input_type: "messages", original_count: 81, compressed_count: sent.length - 1, truncated_count: 0, context_length: 2_048, endpoint: "acme/small@acme" });
    expect(entry.prompt_tokens as number).toBeLessThanOrEqual(2_048);
  });

  test("max_tokens is reserved: asking for more output leaves fewer messages", async () => {
    await chat({ model: "acme/small", messages: history(40) });
    const without = sentMessages().length;
    const { entries } = await chat({ model: "acme/small", messages: history(40), max_tokens: 1_000 });
    expect(sentMessages().length).toBeLessThan(without);
    expect(entries[0]!.prompt_tokens as number).toBeLessThanOrEqual(2_048 - 1_000);
  });

  test("a prompt that fits is sent as it is, and nothing is reported", async () => {
    const { entries } = await chat({ model: "acme/small", messages: history(3) });
    expect(sentMessages()).toHaveLength(7);
    expect(entries).toEqual([]);
  });

  test("{id, enabled: false} turns the default off for one request", async () => {
    const { entries } = await chat({ model: "acme/small", messages: history(40), plugins: [{ id: "context-compression", enabled: false }] });
    expect(sentMessages()).toHaveLength(81);
    expect(entries).toEqual([]);
  });

  test("a larger window is left alone by default; named in the request, the plugin applies to it too", async () => {
    const long = history(200);
    await chat({ model: "acme/large", messages: long });
    expect(sentMessages()).toHaveLength(long.length);
    const { entries } = await chat({ model: "acme/large", messages: long, plugins: [{ id: "context-compression", engine: "middle-out" }] });
    expect(sentMessages().length).toBeLessThan(long.length);
    expect(entries[0]).toMatchObject({ context_length: 20_000, endpoint: "acme/large@acme" });
  });

  test("streamed requests are compressed the same way", async () => {
    const stream = await openai.chat.completions.create({ model: "acme/small", messages: history(40) as never, stream: true });
    for await (const _chunk of stream) void _chunk;
    expect(sentMessages().length).toBeLessThan(81);
  });
});

describe("tool calls and results", () => {
  test("are removed as pairs: every tool result sent answers a call sent just before it", async () => {
    const messages: ChatMessage[] = [{ role: "user", content: "start" }];
    const filler = "lorem ipsum dolor sit amet ".repeat(20);
    for (let i = 0; i < 30; i++) {
      messages.push({ role: "assistant", content: null, tool_calls: [{ id: `call_${i}`, type: "function", function: { name: "lookup", arguments: `{"i":${i}}` } }] });
      messages.push({ role: "tool", tool_call_id: `call_${i}`, content: filler });
    }
    messages.push({ role: "user", content: "done?" });
    const { status } = await chat({ model: "acme/small", messages, tools: [{ type: "function", function: { name: "lookup", parameters: { type: "object" } } }] });
    expect(status).toBe(200);
    const sent = sentMessages();
    expect(sent.length).toBeLessThan(messages.length);
    sent.forEach((message, index) => {
      if (message.role !== "tool") return;
      const previous = sent[index - 1] as { tool_calls?: Array<{ id: string }> };
      expect(previous.tool_calls?.map((c) => c.id)).toEqual([message.tool_call_id!]);
    });
  });
});

describe("when nothing can make it fit", () => {
  test("400 context_length_exceeded, naming the window", async () => {
    const system = "Always follow these rules. ".repeat(500);
    const { status, json } = await chat({ model: "acme/small", messages: [{ role: "system", content: system }, ...history(2)] });
    expect(status).toBe(400);
    expect(json.error?.metadata).toMatchObject({ error_type: "context_length_exceeded", context_length: 2_048, max_tokens: 0, model: "acme/small" });
    expect(json.error?.message).toMatch(/^The prompt cannot be compressed to fit acme\/small's context window of 2048 tokens: even with the middle removed it needs at least \d+ tokens$/);
  });

  test("max_tokens at the window leaves no room: 400", async () => {
    const { status, json } = await chat({ model: "acme/small", messages: history(1), max_tokens: 2_048 });
    expect([status, json.error?.metadata.error_type]).toEqual([400, "context_length_exceeded"]);
  });

  test("one huge last message is cut in its middle rather than refused", async () => {
    const huge = `BEGIN ${"data ".repeat(5_000)} END`;
    const { status, entries } = await chat({ model: "acme/small", messages: [{ role: "user", content: huge }] });
    expect(status).toBe(200);
    const sent = sentMessages()[0]!.content as string;
    expect(sent.startsWith("BEGIN")).toBe(true);
    expect(sent.endsWith("END")).toBe(true);
    expect(entries[0]).toMatchObject({ original_count: 1, compressed_count: 1, truncated_count: 1 });
  });
});

describe("options", () => {
  test("an unknown engine is a 400 naming the field", async () => {
    const { status, json } = await chat({ model: "acme/small", messages: history(1), plugins: [{ id: "context-compression", engine: "summarize" }] });
    expect([status, json.error?.metadata.param]).toEqual([400, "plugins[0].engine"]);
  });
});
