/**
 * The cloud kinds' quirks through the official `openai` and `@anthropic-ai/sdk` clients, against the behavioural
 * fake (test/support/fake-compatible/): what each server refuses is dropped with a warning the client can read
 * (`service_metadata.warnings`), its reasoning switches and fields, its usage dialect, its tool-call ids and errors.
 */
import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { keyOf } from "../../support/fake-compatible/dialects.ts";
import { type FakeCompatible, startFakeCompatible } from "../../support/fake-compatible/server.ts";
import { startTestGateway, type TestGateway } from "../../support/gateway.ts";
import { KIND_PRICING, providerEntry } from "../../conformance/support/kinds.ts";

let fake: FakeCompatible;
let gw: TestGateway;
let openai: OpenAI;
let anthropic: Anthropic;

/** A cloud provider of `kind` serving the given models (`<kind>/<served>`). */
function cloud(kind: Parameters<typeof providerEntry>[1], served: string[]) {
  return { ...providerEntry(fake, kind), models: served.map((name) => ({ id: `${kind}/${name}`, upstream_model: name, pricing: KIND_PRICING })) };
}

beforeAll(async () => {
  fake = await startFakeCompatible();
  gw = await startTestGateway({
    file: {
      providers: [
        cloud("deepseek", ["deepseek-reasoner"]),
        cloud("mistral", ["mistral-large-latest"]),
        cloud("groq", ["qwen/qwen3-32b", "openai/gpt-oss-120b"]),
        cloud("cerebras", ["gpt-oss-120b"]),
        cloud("together", ["deepseek-ai/DeepSeek-V3.1"]),
        cloud("fireworks", ["accounts/fireworks/models/kimi-k2-instruct"]),
        cloud("xai", ["grok-3-mini", "grok-4"]),
      ],
      routing: { max_retries: 0 },
    },
  });
  openai = new OpenAI({ baseURL: gw.baseUrl, apiKey: gw.inferenceKey, maxRetries: 0, defaultHeaders: { "x-service-metadata": "enabled" } });
  anthropic = new Anthropic({ baseURL: `${gw.origin}/api`, apiKey: gw.inferenceKey, maxRetries: 0 });
});
afterAll(async () => {
  await gw.close();
  await fake.stop();
});
beforeEach(() => fake.reset());

type Json = Record<string, unknown>;
const warningsOf = (reply: unknown): Array<{ field?: string; message: string }> =>
  (((reply as { service_metadata?: { warnings?: unknown } }).service_metadata?.warnings as Array<{ field?: string; message: string }>) ?? []);
const sent = (): Json => fake.lastChat().body;
const user = (content: string): OpenAI.ChatCompletionMessageParam => ({ role: "user", content });

describe("DeepSeek", () => {
  test("reasoning_content is reasoning, and it is never sent back on the next turn (the server refuses it)", async () => {
    fake.answer({ reasoning: "Paris has been the capital since 987.", text: "Paris.", usage: { prompt: 20, completion: 12, cached: 12 } });
    const first = await openai.chat.completions.create({ model: "deepseek/deepseek-reasoner", messages: [user("Capital of France?")] });
    const message = first.choices[0]!.message as OpenAI.ChatCompletionMessage & { reasoning?: string; reasoning_details?: unknown[] };
    expect(message.reasoning).toBe("Paris has been the capital since 987.");
    expect(message.content).toBe("Paris.");
    // The hit/miss counts: 12 of the 20 prompt tokens were cache hits.
    expect(first.usage?.prompt_tokens).toBe(20);
    expect(first.usage?.prompt_tokens_details?.cached_tokens).toBe(12);
    expect(fake.lastChat().body.max_tokens).toBeUndefined();

    // The client echoes the whole message, reasoning fields included, as SDK users do.
    const stream = await openai.chat.completions.create({
      model: "deepseek/deepseek-reasoner",
      messages: [user("Capital of France?"), message as OpenAI.ChatCompletionAssistantMessageParam, user("And of Italy?")],
      max_completion_tokens: 300,
      stream: true,
    });
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    expect(text).toBe("The capital of France is Paris.");
    const assistant = (sent().messages as Json[])[1]!;
    expect(assistant).toEqual({ role: "assistant", content: "Paris." });
    expect(sent().max_tokens).toBe(300);
  });
});

describe("Mistral", () => {
  const tools: OpenAI.ChatCompletionTool[] = [{ type: "function", function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } } }];
  const history = (id: string): OpenAI.ChatCompletionMessageParam[] => [
    { role: "user", content: "Weather in Paris?", name: "ada" },
    { role: "assistant", content: null, tool_calls: [{ id, type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }] },
    { role: "tool", tool_call_id: id, content: "18 °C" },
  ];

  test("other clients' tool-call ids are sent as nine letters and digits, the same each time; fields it refuses are dropped with warnings", async () => {
    const clientId = "call_0fypS1hVXk2Lw8Qz";
    const a = await openai.chat.completions.create({ model: "mistral/mistral-large-latest", messages: history(clientId), tools, seed: 7, logprobs: true, user: "u-1" });
    expect(a.choices[0]!.message.content).toBe("The capital of France is Paris.");
    const first = sent();
    const [, assistant, result] = first.messages as Json[];
    const mapped = (assistant!.tool_calls as Json[])[0]!.id as string;
    expect(mapped).toMatch(/^[A-Za-z0-9]{9}$/);
    expect(result!.tool_call_id).toBe(mapped);
    expect(first.random_seed).toBe(7);
    for (const field of ["seed", "logprobs", "user", "stream_options", "max_completion_tokens"]) expect(first).not.toHaveProperty(field);
    expect((first.messages as Json[])[0]).not.toHaveProperty("name");
    expect(warningsOf(a).map((w) => w.field)).toEqual(expect.arrayContaining(["logprobs", "user", "messages.name"]));

    await openai.chat.completions.create({ model: "mistral/mistral-large-latest", messages: history(clientId), tools, stream: true }).then(async (s) => {
      for await (const _ of s);
    });
    expect(((sent().messages as Json[])[1]!.tool_calls as Json[])[0]!.id).toBe(mapped);
  });

  test("its own ids reach the client as they are and come back unchanged (Anthropic client, streamed and not)", async () => {
    fake.answer({ toolCalls: [{ name: "get_weather", arguments: '{"city":"Paris"}' }] }, {});
    const weather: Anthropic.Tool = { name: "get_weather", input_schema: { type: "object", properties: { city: { type: "string" } } } };
    const first = await anthropic.messages.create({ model: "mistral/mistral-large-latest", max_tokens: 256, tools: [weather], messages: [{ role: "user", content: "Weather in Paris?" }] });
    const use = first.content.find((b): b is Anthropic.ToolUseBlock => b.type === "tool_use")!;
    expect(use.id).toMatch(/^[A-Za-z0-9]{9}$/);
    const final = await anthropic.messages
      .stream({
        model: "mistral/mistral-large-latest",
        max_tokens: 256,
        tools: [weather],
        messages: [
          { role: "user", content: "Weather in Paris?" },
          { role: "assistant", content: first.content },
          { role: "user", content: [{ type: "tool_result", tool_use_id: use.id, content: "18 °C" }] },
        ],
      })
      .finalMessage();
    expect(final.content[0]).toMatchObject({ type: "text", text: "The capital of France is Paris." });
    const tool = (sent().messages as Json[]).find((m) => m.role === "tool")!;
    expect(tool.tool_call_id).toBe(use.id);
  });

  test("an Anthropic client's toolu_ ids are mapped out and back: a reply naming the mapped id shows the client's own", async () => {
    const clientId = "toolu_01A09q90qw90lq917835lq9";
    const messages: Anthropic.MessageParam[] = [
      { role: "user", content: "Weather in Paris and Rome?" },
      { role: "assistant", content: [{ type: "tool_use", id: clientId, name: "get_weather", input: { city: "Paris" } }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: clientId, content: "18 °C" }] },
    ];
    const weather: Anthropic.Tool = { name: "get_weather", input_schema: { type: "object", properties: { city: { type: "string" } } } };
    await anthropic.messages.create({ model: "mistral/mistral-large-latest", max_tokens: 256, tools: [weather], messages });
    const mapped = (sent().messages as Json[]).find((m) => m.role === "tool")!.tool_call_id as string;
    expect(mapped).toMatch(/^[A-Za-z0-9]{9}$/);
    // The server names a call by the id it was given (it continues that call): the client sees its own id again.
    fake.answer({ toolCalls: [{ id: mapped, name: "get_weather", arguments: '{"city":"Paris"}' }] }, { toolCalls: [{ id: mapped, name: "get_weather", arguments: '{"city":"Paris"}' }] });
    const whole = await anthropic.messages.create({ model: "mistral/mistral-large-latest", max_tokens: 256, tools: [weather], messages });
    expect(whole.content.find((b) => b.type === "tool_use")).toMatchObject({ id: clientId });
    const streamed = await anthropic.messages.stream({ model: "mistral/mistral-large-latest", max_tokens: 256, tools: [weather], messages }).finalMessage();
    expect(streamed.content.find((b) => b.type === "tool_use")).toMatchObject({ id: clientId });
  });

  test("model_length is a length finish; Magistral's thinking chunks are reasoning", async () => {
    fake.answer({ text: "Paris is", reasoning: "Short answer.", finish: "model_length" }, { text: "Paris is", reasoning: "Short answer.", finish: "model_length" });
    const whole = await openai.chat.completions.create({ model: "mistral/mistral-large-latest", messages: [user("Capital?")] });
    expect(whole.choices[0]!.finish_reason).toBe("length");
    expect((whole.choices[0]!.message as { reasoning?: string }).reasoning).toBe("Short answer.");
    const streamed = await anthropic.messages.stream({ model: "mistral/mistral-large-latest", max_tokens: 64, messages: [{ role: "user", content: "Capital?" }] }).finalMessage();
    expect(streamed.stop_reason).toBe("max_tokens");
    expect(streamed.content.map((b) => b.type)).toEqual(["thinking", "text"]);
  });

  test("its error shapes: a validation detail list and a sentence both reach the client as its message", async () => {
    fake.answer({
      fail: { status: 422, body: { object: "error", message: { detail: [{ type: "extra_forbidden", loc: ["body", "messages", 0, "user", "foo"], msg: "Extra inputs are not permitted" }] }, type: "invalid_request_message_error", param: null, code: null } },
    });
    const invalid = await openai.chat.completions.create({ model: "mistral/mistral-large-latest", messages: [user("Hi")] }).catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(OpenAI.APIError);
    expect((invalid as InstanceType<typeof OpenAI.APIError>).status).toBe(422);
    expect((invalid as InstanceType<typeof OpenAI.APIError>).message).toContain("body.messages.0.user.foo: Extra inputs are not permitted");
    fake.answer({ fail: { status: 400, body: { object: "error", message: "Prompt contains 40000 tokens, too large for model with 32768 maximum context length", type: "invalid_request_error", param: null, code: "3051" } } });
    const tooLong = await openai.chat.completions.create({ model: "mistral/mistral-large-latest", messages: [user("Hi")] }).catch((e: unknown) => e);
    expect((tooLong as InstanceType<typeof OpenAI.APIError>).status).toBe(400);
    expect(((tooLong as InstanceType<typeof OpenAI.APIError>).error as { metadata?: { error_type?: string } }).metadata?.error_type).toBe("context_length_exceeded");
  });
});

describe("Groq, Cerebras, Together, Fireworks: refused parameters and reasoning switches", () => {
  test("Groq: logprobs, top_logprobs, logit_bias and message names are dropped with warnings; reasoning comes parsed when asked", async () => {
    fake.answer({ reasoning: "Recall the capital.", text: "Paris." });
    const reply = await openai.chat.completions.create({
      model: "groq/qwen/qwen3-32b",
      messages: [{ role: "user", content: "Capital of France?", name: "ada" }],
      logprobs: true,
      top_logprobs: 2,
      logit_bias: { "42": 1 },
      reasoning_effort: "medium",
    });
    expect(reply.choices[0]!.message.content).toBe("Paris.");
    expect((reply.choices[0]!.message as { reasoning?: string }).reasoning).toBe("Recall the capital.");
    for (const field of ["logprobs", "top_logprobs", "logit_bias"]) expect(sent()).not.toHaveProperty(field);
    expect(sent().reasoning_format).toBe("parsed");
    expect(warningsOf(reply).map((w) => w.field).sort()).toEqual(["logit_bias", "logprobs", "messages.name", "top_logprobs"]);
    // Its gpt-oss models take include_reasoning instead, and reasoning switched off is asked hidden.
    await openai.chat.completions.create({ model: "groq/openai/gpt-oss-120b", messages: [user("Hi")], reasoning_effort: "low" });
    expect(sent()).toMatchObject({ include_reasoning: true });
    expect(sent()).not.toHaveProperty("reasoning_format");
    await openai.chat.completions.create({ model: "groq/qwen/qwen3-32b", messages: [user("Hi")], reasoning: { enabled: false } } as OpenAI.ChatCompletionCreateParamsNonStreaming);
    expect(sent().reasoning_format).toBe("hidden");
  });

  test("Groq streams its usage in x_groq: the client still gets usage", async () => {
    const stream = await openai.chat.completions.create({ model: "groq/qwen/qwen3-32b", messages: [user("Hi")], stream: true, stream_options: { include_usage: true } });
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) usage = chunk.usage ?? usage;
    expect(usage).toMatchObject({ prompt_tokens: 20, completion_tokens: 9 });
  });

  test("Cerebras: penalties, logit_bias, parallel_tool_calls and service_tier are dropped with warnings; reasoning parsed", async () => {
    fake.answer({ reasoning: "Think.", text: "Paris." });
    const reply = await openai.chat.completions.create({
      model: "cerebras/gpt-oss-120b",
      messages: [user("Capital?")],
      frequency_penalty: 0.5,
      presence_penalty: 0.5,
      logit_bias: { "1": 1 },
      tools: [{ type: "function", function: { name: "noop", parameters: { type: "object" } } }],
      parallel_tool_calls: false,
      reasoning_effort: "high",
    });
    expect((reply.choices[0]!.message as { reasoning?: string }).reasoning).toBe("Think.");
    expect(sent()).toMatchObject({ reasoning_format: "parsed", reasoning_effort: "high" });
    expect(warningsOf(reply).map((w) => w.field).sort()).toEqual(["frequency_penalty", "logit_bias", "parallel_tool_calls", "presence_penalty"]);
  });

  test("Together: logprobs is a count, and hybrid reasoning is switched with reasoning.enabled", async () => {
    await openai.chat.completions.create({ model: "together/deepseek-ai/DeepSeek-V3.1", messages: [user("Hi")], logprobs: true, top_logprobs: 3 });
    expect(sent().logprobs).toBe(3);
    expect(sent()).not.toHaveProperty("top_logprobs");
    fake.answer({ reasoning: "Hmm.", text: "Hi!" }, { reasoning: "Hmm.", text: "Hi!" });
    const on = await openai.chat.completions.create({ model: "together/deepseek-ai/DeepSeek-V3.1", messages: [user("Hi")], reasoning: { enabled: true } } as OpenAI.ChatCompletionCreateParamsNonStreaming);
    expect(sent().reasoning).toEqual({ enabled: true });
    expect((on.choices[0]!.message as { reasoning?: string }).reasoning).toBe("Hmm.");
    const off = await openai.chat.completions.create({ model: "together/deepseek-ai/DeepSeek-V3.1", messages: [user("Hi")], reasoning: { enabled: false } } as OpenAI.ChatCompletionCreateParamsNonStreaming);
    expect(sent().reasoning).toEqual({ enabled: false });
    expect((off.choices[0]!.message as { reasoning?: string | null }).reasoning ?? null).toBeNull();
  });

  test("Fireworks: penalties and logit_bias dropped with warnings, the cache key renamed, reasoning off as effort none", async () => {
    const reply = await openai.chat.completions.create({
      model: "fireworks/accounts/fireworks/models/kimi-k2-instruct",
      messages: [user("Hi")],
      presence_penalty: 1,
      frequency_penalty: 1,
      prompt_cache_key: "tenant-7",
      reasoning: { enabled: false },
    } as OpenAI.ChatCompletionCreateParamsNonStreaming);
    expect(reply.choices[0]!.message.content).toBe("The capital of France is Paris.");
    expect(sent()).toMatchObject({ prompt_cache_isolation_key: "tenant-7", reasoning_effort: "none" });
    expect(sent()).not.toHaveProperty("prompt_cache_key");
    expect(warningsOf(reply).map((w) => w.field).sort()).toEqual(["frequency_penalty", "presence_penalty"]);
  });
});

test("/models lists what each server takes: a kind's refused parameters are not among its models' supported_parameters", async () => {
  const { data } = (await (await gw.request("/models")).json()) as { data: Array<{ id: string; supported_parameters: string[] }> };
  const of = (id: string) => data.find((m) => m.id === id)!.supported_parameters;
  expect(of("groq/qwen/qwen3-32b")).not.toContain("logprobs");
  expect(of("groq/qwen/qwen3-32b")).toContain("tools");
  expect(of("mistral/mistral-large-latest")).not.toContain("top_k");
  expect(of("mistral/mistral-large-latest")).toContain("seed");
  expect(of("cerebras/gpt-oss-120b")).not.toContain("presence_penalty");
  expect(of("deepseek/deepseek-reasoner")).toContain("logprobs");
});

describe("xAI", () => {
  test("reasoning_content and its usage: reasoning tokens count as output, cost_in_usd_ticks is the upstream cost", async () => {
    fake.answer({ reasoning: "101 * 3 = 303.", text: "303", usage: { prompt: 16, completion: 311, reasoning: 297 } });
    const reply = await openai.chat.completions.create({ model: "xai/grok-3-mini", messages: [user("101*3?")], reasoning_effort: "high", stop: ["\n\n"] });
    expect((reply.choices[0]!.message as { reasoning?: string }).reasoning).toBe("101 * 3 = 303.");
    // xAI said completion 14, reasoning 297 apart: the client sees OpenAI's convention, reasoning inside the output.
    expect(reply.usage).toMatchObject({ prompt_tokens: 16, completion_tokens: 311, completion_tokens_details: { reasoning_tokens: 297 } });
    const usage = reply.usage as OpenAI.CompletionUsage & { cost?: number; cost_details?: { upstream_inference_cost?: number } };
    expect(usage.cost).toBeCloseTo(16 * KIND_PRICING.prompt + 311 * KIND_PRICING.completion, 12);
    expect(usage.cost_details?.upstream_inference_cost).toBeCloseTo(0.0037756, 10);
    expect(sent()).toMatchObject({ reasoning_effort: "high" });
    expect(sent()).not.toHaveProperty("stop");
  });

  test("grok-4 refuses penalties, stop and reasoning_effort: dropped with warnings", async () => {
    const reply = await openai.chat.completions.create({ model: "xai/grok-4", messages: [user("Hi")], presence_penalty: 1, stop: ["x"], reasoning_effort: "low" });
    expect(reply.choices[0]!.message.content).toBe("The capital of France is Paris.");
    expect(warningsOf(reply).map((w) => w.field).sort()).toEqual(["presence_penalty", "reasoning_effort", "stop"]);
  });
});
