/**
 * The gateway in front of the fake Bedrock (test/support/fake-bedrock/), driven with the clients people use: `openai`
 * (chat completions), `@anthropic-ai/sdk` (Messages) and `@openrouter/sdk`, streamed and not. What the fake received
 * is checked too: the model id in the path (an inference profile, URL-encoded), a SigV4 signature its own signer
 * accepts, the Converse body. Mid-stream exceptions, throttling with and without a fallback, and error replies come
 * back as each client's errors.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { REGION, STATIC_KEY } from "../../support/fake-bedrock/identities.ts";
import { startFakeBedrock, type FakeBedrock } from "../../support/fake-bedrock/server.ts";
import { startTestGateway, type TestGateway } from "../../support/gateway.ts";
import { chatChunks, chatOnce, sdkClient } from "../../support/openrouter-sdk.ts";

const PROFILE = "us.anthropic.claude-sonnet-4-5-20250929-v1:0";
let fake: FakeBedrock;
let gw: TestGateway;
let openai: OpenAI;
let anthropic: Anthropic;

beforeAll(async () => {
  fake = await startFakeBedrock();
  const credentials = { access_key_id: STATIC_KEY.accessKeyId, secret_access_key: STATIC_KEY.secretAccessKey };
  const pricing = { prompt: 0.000003, completion: 0.000015, cache_read: 0.0000003, cache_write: 0.00000375 };
  gw = await startTestGateway({
    file: {
      providers: [
        { id: "aws", adapter: "bedrock", region: REGION, base_url: fake.origin, credentials, models: [{ id: "aws/claude-sonnet", upstream_model: PROFILE, pricing, input_modalities: ["text", "image", "file"] }] },
        // A second endpoint of another model, for the throttling fallback; and an earlier Claude (no native structured outputs).
        {
          id: "aws-west",
          adapter: "bedrock",
          region: REGION,
          base_url: fake.origin,
          credentials,
          models: [
            { id: "aws/claude-haiku", upstream_model: "anthropic.claude-haiku-4-5-20251001-v1:0", pricing },
            { id: "aws/claude-3-5", upstream_model: "anthropic.claude-3-5-sonnet-20240620-v1:0", pricing },
          ],
        },
      ],
      routing: { max_retries: 0, breaker: { failure_threshold: 1_000_000 } },
    },
  });
  openai = new OpenAI({ baseURL: gw.baseUrl, apiKey: gw.inferenceKey, maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: gw.baseUrl.replace(/\/v1$/, ""), apiKey: gw.inferenceKey, maxRetries: 0 });
});
afterAll(async () => {
  await gw.close();
  await fake.stop();
});
beforeEach(() => fake.reset());

const answer = {
  output: { message: { role: "assistant", content: [{ text: "The capital of France is Paris." }] } },
  stopReason: "end_turn",
  usage: { inputTokens: 250, outputTokens: 50, totalTokens: 2150, cacheReadInputTokens: 1800, cacheWriteInputTokens: 50 },
  metrics: { latencyMs: 321 },
};

const streamed = [
  { event: "messageStart", data: { role: "assistant", p: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNO" } },
  { event: "contentBlockDelta", data: { contentBlockIndex: 0, delta: { text: "The capital" }, p: "abcdefghijklmnopq" } },
  { event: "contentBlockDelta", data: { contentBlockIndex: 0, delta: { text: " of France is Paris." }, p: "abcdefg" } },
  { event: "contentBlockStop", data: { contentBlockIndex: 0, p: "abcdefghijklmnopqrstu" } },
  { event: "messageStop", data: { stopReason: "end_turn", p: "abcdefghijk" } },
  { event: "metadata", data: { usage: { inputTokens: 250, outputTokens: 50, totalTokens: 2150, cacheReadInputTokens: 1800, cacheWriteInputTokens: 50 }, metrics: { latencyMs: 512 }, p: "abc" } },
];

const question = "What is the capital of France?";

function expectSignedConverse(stream: boolean): void {
  const seen = fake.last();
  expect(seen.auth).toEqual({ kind: "sigv4", accessKeyId: STATIC_KEY.accessKeyId });
  expect(seen.path).toBe(`/model/${encodeURIComponent(PROFILE)}/${stream ? "converse-stream" : "converse"}`);
  expect(seen.modelId).toBe(PROFILE);
  expect(seen.body.messages).toEqual([{ role: "user", content: [{ text: question }] }]);
}

describe("openai client (chat completions)", () => {
  test("an answer with its usage, cache reads and writes included", async () => {
    fake.enqueue({ kind: "converse", body: answer });
    const completion = await openai.chat.completions.create({ model: "aws/claude-sonnet", messages: [{ role: "user", content: question }] });
    expect(completion.choices[0]?.message.content).toBe("The capital of France is Paris.");
    expect(completion.choices[0]?.finish_reason).toBe("stop");
    expect(completion.usage?.prompt_tokens).toBe(2100);
    expect(completion.usage?.prompt_tokens_details?.cached_tokens).toBe(1800);
    expect(completion.usage?.completion_tokens).toBe(50);
    expectSignedConverse(false);
  });

  test("streamed from the binary event stream", async () => {
    fake.enqueue({ kind: "stream", frames: streamed });
    const stream = await openai.chat.completions.create({ model: "aws/claude-sonnet", messages: [{ role: "user", content: question }], stream: true, stream_options: { include_usage: true } });
    let text = "";
    let finish: string | null | undefined;
    let usage: OpenAI.CompletionUsage | undefined | null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? "";
      finish = chunk.choices[0]?.finish_reason ?? finish;
      usage = chunk.usage ?? usage;
    }
    expect(text).toBe("The capital of France is Paris.");
    expect(finish).toBe("stop");
    expect(usage?.prompt_tokens).toBe(2100);
    expectSignedConverse(true);
  });

  test("a throttling exception mid-stream after output: the text so far, then the in-band error", async () => {
    fake.enqueue({ kind: "stream", frames: [...streamed.slice(0, 2), { event: "throttlingException", data: { message: "Too many tokens, please wait before trying again." } }] });
    const stream = await openai.chat.completions.create({ model: "aws/claude-sonnet", messages: [{ role: "user", content: question }], stream: true });
    let text = "";
    const failure = await (async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    })().catch((e: unknown) => e);
    expect(text).toBe("The capital");
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect(fake.requests).toHaveLength(1);
  });

  test("throttling before any output with no endpoint left is a 429", async () => {
    fake.enqueue({ kind: "stream", frames: [streamed[0]!, { event: "throttlingException", data: { message: "Too many requests, please wait before trying again." } }] });
    const failure = (await openai.chat.completions
      .create({ model: "aws/claude-sonnet", messages: [{ role: "user", content: question }], stream: true })
      .then(async (s) => {
        for await (const _ of s);
      })
      .catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect(failure.status).toBe(429);
  });

  test("throttling before any output falls back to the next model, which answers", async () => {
    fake.enqueue({ kind: "stream", frames: [streamed[0]!, { event: "throttlingException", data: { message: "Too many requests" } }] }, { kind: "stream", frames: streamed });
    const res = await gw.request("/chat/completions", { method: "POST", json: { model: "aws/claude-sonnet", models: ["aws/claude-haiku"], messages: [{ role: "user", content: question }], stream: true } });
    const body = await res.text();
    expect(res.status).toBe(200);
    expect(body).toContain(" of France is Paris.");
    expect(fake.requests.map((r) => r.modelId)).toEqual([PROFILE, "anthropic.claude-haiku-4-5-20251001-v1:0"]);
  });

  test("an error reply: ValidationException is a 400 with the upstream's sentence", async () => {
    fake.enqueue({ kind: "error", type: "ValidationException", message: "The model returned the following errors: temperature: range: 0..1" });
    const failure = (await openai.chat.completions.create({ model: "aws/claude-sonnet", messages: [{ role: "user", content: question }], temperature: 1 }).catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
    expect(failure.status).toBe(400);
    expect(failure.message).toContain("temperature: range");
  });
});

describe("@anthropic-ai/sdk (Messages)", () => {
  test("an answer, and thinking with a budget reaching Claude through additionalModelRequestFields", async () => {
    fake.enqueue({
      kind: "converse",
      body: {
        ...answer,
        output: {
          message: {
            role: "assistant",
            content: [{ reasoningContent: { reasoningText: { text: "Paris is the capital.", signature: "EqQBCkgIBRABGAIiQSigned" } } }, { text: "The capital of France is Paris." }],
          },
        },
      },
    });
    const message = await anthropic.messages.create({ model: "aws/claude-sonnet", max_tokens: 4096, thinking: { type: "enabled", budget_tokens: 2048 }, messages: [{ role: "user", content: question }] });
    expect(message.content).toEqual([
      { type: "thinking", thinking: "Paris is the capital.", signature: "EqQBCkgIBRABGAIiQSigned" },
      expect.objectContaining({ type: "text", text: "The capital of France is Paris." }),
    ]);
    expect(message.usage.input_tokens).toBe(250);
    expect(message.usage.cache_read_input_tokens).toBe(1800);
    expect(message.usage.cache_creation_input_tokens).toBe(50);
    const sent = fake.last().body;
    expect(sent.additionalModelRequestFields).toEqual({ thinking: { type: "enabled", budget_tokens: 2048 } });
    expect(sent.inferenceConfig).toEqual({ maxTokens: 4096 });
  });

  test("streamed, with Claude's text events", async () => {
    fake.enqueue({ kind: "stream", frames: streamed });
    const stream = anthropic.messages.stream({ model: "aws/claude-sonnet", max_tokens: 256, messages: [{ role: "user", content: question }] });
    const final = await stream.finalMessage();
    expect(final.content).toEqual([expect.objectContaining({ type: "text", text: "The capital of France is Paris." })]);
    expect(final.stop_reason).toBe("end_turn");
    expectSignedConverse(true);
  });

  test("a cache_control mark becomes a cachePoint after the block it marks", async () => {
    fake.enqueue({ kind: "converse", body: answer });
    await anthropic.messages.create({
      model: "aws/claude-sonnet",
      max_tokens: 256,
      system: [{ type: "text", text: "You are a geography tutor.", cache_control: { type: "ephemeral" } }],
      messages: [{ role: "user", content: [{ type: "text", text: question, cache_control: { type: "ephemeral", ttl: "1h" } }] }],
    });
    const sent = fake.last().body;
    expect(sent.system).toEqual([{ text: "You are a geography tutor." }, { cachePoint: { type: "default" } }]);
    expect(sent.messages).toEqual([{ role: "user", content: [{ text: question }, { cachePoint: { type: "default", ttl: "1h" } }] }]);
  });
});

describe("@openrouter/sdk", () => {
  test("chat, collected and streamed", async () => {
    const { sdk } = sdkClient(gw, gw.inferenceKey);
    fake.enqueue({ kind: "converse", body: answer });
    const result = await chatOnce(sdk, { model: "aws/claude-sonnet", messages: [{ role: "user", content: question }] });
    expect(result.choices[0]?.message.content).toBe("The capital of France is Paris.");
    fake.enqueue({ kind: "stream", frames: streamed });
    const chunks = await chatChunks(sdk, { model: "aws/claude-sonnet", messages: [{ role: "user", content: question }] });
    expect(chunks.map((c) => c.choices[0]?.delta?.content ?? "").join("")).toBe("The capital of France is Paris.");
  });
});

describe("structured output and media through the clients", () => {
  const schema = { type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false };
  const format = { type: "json_schema" as const, json_schema: { name: "capital", schema, strict: true } };

  test("Claude 4.5: Converse's own outputConfig, the schema as a JSON string", async () => {
    fake.enqueue({ kind: "converse", body: { ...answer, output: { message: { role: "assistant", content: [{ text: '{"city":"Paris"}' }] } } } });
    const completion = await openai.chat.completions.create({ model: "aws/claude-sonnet", messages: [{ role: "user", content: question }], response_format: format });
    expect(JSON.parse(completion.choices[0]?.message.content ?? "")).toEqual({ city: "Paris" });
    expect(fake.last().body.outputConfig).toEqual({ textFormat: { type: "json_schema", structure: { jsonSchema: { schema: JSON.stringify(schema), name: "capital" } } } });
    expect(fake.last().body.toolConfig).toBeUndefined();
  });

  test("an earlier Claude: a forced tool, whose input comes back as the answer's text, streamed too", async () => {
    const toolAnswer = { output: { message: { role: "assistant", content: [{ toolUse: { toolUseId: "tooluse_j1", name: "json_answer", input: { city: "Paris" } } }] } }, stopReason: "tool_use", usage: answer.usage };
    fake.enqueue({ kind: "converse", body: toolAnswer });
    const completion = await openai.chat.completions.create({ model: "aws/claude-3-5", messages: [{ role: "user", content: question }], response_format: format });
    expect(JSON.parse(completion.choices[0]?.message.content ?? "")).toEqual({ city: "Paris" });
    expect(completion.choices[0]?.finish_reason).toBe("stop");
    expect(completion.choices[0]?.message.tool_calls ?? []).toEqual([]);
    const sent = fake.last().body.toolConfig as { tools: Array<{ toolSpec: { name: string; inputSchema: unknown } }>; toolChoice: unknown };
    expect(sent.tools.map((t) => t.toolSpec.name)).toEqual(["json_answer"]);
    expect(sent.tools[0]?.toolSpec.inputSchema).toEqual({ json: schema });
    expect(sent.toolChoice).toEqual({ tool: { name: "json_answer" } });

    fake.enqueue({
      kind: "stream",
      frames: [
        streamed[0]!,
        { event: "contentBlockStart", data: { contentBlockIndex: 0, start: { toolUse: { toolUseId: "tooluse_j2", name: "json_answer" } } } },
        { event: "contentBlockDelta", data: { contentBlockIndex: 0, delta: { toolUse: { input: '{"city":' } } } },
        { event: "contentBlockDelta", data: { contentBlockIndex: 0, delta: { toolUse: { input: '"Paris"}' } } } },
        { event: "contentBlockStop", data: { contentBlockIndex: 0 } },
        { event: "messageStop", data: { stopReason: "tool_use" } },
        { event: "metadata", data: { usage: answer.usage, metrics: { latencyMs: 1 } } },
      ],
    });
    const stream = await openai.chat.completions.create({ model: "aws/claude-3-5", messages: [{ role: "user", content: question }], response_format: format, stream: true });
    let text = "";
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? "";
      finish = chunk.choices[0]?.finish_reason ?? finish;
      expect(chunk.choices[0]?.delta.tool_calls).toBeUndefined();
    }
    expect(JSON.parse(text)).toEqual({ city: "Paris" });
    expect(finish).toBe("stop");
  });

  test("an image and a PDF from a Messages client reach Bedrock as bytes", async () => {
    const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
    fake.enqueue({ kind: "converse", body: answer });
    await anthropic.messages.create({
      model: "aws/claude-sonnet",
      max_tokens: 256,
      messages: [
        {
          role: "user",
          content: [
            { type: "image", source: { type: "base64", media_type: "image/png", data: png } },
            { type: "document", source: { type: "base64", media_type: "application/pdf", data: "JVBERi0xLjQK" }, title: "atlas.pdf" },
            { type: "text", text: "Which city is on the map?" },
          ],
        },
      ],
    });
    expect((fake.last().body.messages as Array<{ content: unknown[] }>)[0]?.content).toEqual([
      { image: { format: "png", source: { bytes: png } } },
      { document: { format: "pdf", name: "atlas", source: { bytes: "JVBERi0xLjQK" } } },
      { text: "Which city is on the map?" },
    ]);
  });
});
