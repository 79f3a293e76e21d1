/**
 * The fake Bedrock (test/support/fake-bedrock/) validated with AWS's own client, `@aws-sdk/client-bedrock-runtime`,
 * pointed at it: ConverseCommand and ConverseStreamCommand succeed with static and temporary credentials and with a
 * Bedrock API key, the SDK reads the fake's answers (text, tool use, reasoning, usage with cache counters, the event
 * stream) as it reads Bedrock's, an exception frame in the middle of a stream surfaces as the SDK's own
 * ThrottlingException, an error reply as the SDK's typed exception, and a wrong secret, an expired session or a
 * signature for another region is refused as AWS refuses them. The translation matrix's Bedrock fixtures
 * (test/fixtures/wire/bedrock/) go through the SDK too. So the fake cannot drift from the real wire.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import {
  BedrockRuntimeClient,
  ConverseCommand,
  ConverseStreamCommand,
  ModelStreamErrorException,
  ThrottlingException,
  ValidationException,
  type ConverseStreamOutput,
} from "@aws-sdk/client-bedrock-runtime";
import { NodeHttpHandler } from "@smithy/node-http-handler";
import { fixture, type FixtureName } from "../../support/fake-upstream/fixtures.ts";
import { API_KEY, EXPIRED_KEY, REGION, SESSION_KEY, STATIC_KEY, type AccessKey } from "../../support/fake-bedrock/identities.ts";
import { startFakeBedrock, type FakeBedrock } from "../../support/fake-bedrock/server.ts";

const MODEL = "us.anthropic.claude-sonnet-4-5-20250929-v1:0";
let fake: FakeBedrock;
beforeAll(async () => void (fake = await startFakeBedrock()));
afterAll(() => fake.stop());
beforeEach(() => fake.reset());

function client(key: AccessKey = STATIC_KEY, region = REGION): BedrockRuntimeClient {
  const credentials = { accessKeyId: key.accessKeyId, secretAccessKey: key.secretAccessKey, ...(key.sessionToken ? { sessionToken: key.sessionToken } : {}) };
  return new BedrockRuntimeClient({ region, endpoint: fake.origin, credentials, maxAttempts: 1, requestHandler: http1() });
}

/**
 * HTTP/1.1, as the gateway speaks to Bedrock (the SDK's default handler negotiates HTTP/2 over TLS, which a loopback
 * fake without TLS cannot offer; Bedrock serves Converse and ConverseStream over either).
 */
const http1 = () => new NodeHttpHandler();

const question = { modelId: MODEL, messages: [{ role: "user" as const, content: [{ text: "What is the capital of France?" }] }] };

const converseBody = {
  output: {
    message: {
      role: "assistant",
      content: [
        { reasoningContent: { reasoningText: { text: "The user asks for a capital.", signature: "EqQBCkgIARABGAIiQFakeSignature" } } },
        { text: "The capital of France is Paris." },
      ],
    },
  },
  stopReason: "end_turn",
  usage: { inputTokens: 250, outputTokens: 50, totalTokens: 2150, cacheReadInputTokens: 1800, cacheWriteInputTokens: 50 },
  metrics: { latencyMs: 412 },
};

const streamFrames = [
  { event: "messageStart", data: { role: "assistant", p: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJ" } },
  { event: "contentBlockDelta", data: { contentBlockIndex: 0, delta: { text: "The capital" }, p: "abcdefgh" } },
  { event: "contentBlockDelta", data: { contentBlockIndex: 0, delta: { text: " of France is Paris." }, p: "abcd" } },
  { event: "contentBlockStop", data: { contentBlockIndex: 0, p: "abcdefghijk" } },
  { event: "contentBlockStart", data: { contentBlockIndex: 1, start: { toolUse: { toolUseId: "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q", name: "get_weather" } }, p: "ab" } },
  { event: "contentBlockDelta", data: { contentBlockIndex: 1, delta: { toolUse: { input: '{"city":' } }, p: "abc" } },
  { event: "contentBlockDelta", data: { contentBlockIndex: 1, delta: { toolUse: { input: '"Paris"}' } }, p: "abc" } },
  { event: "contentBlockStop", data: { contentBlockIndex: 1, p: "abcdefg" } },
  { event: "messageStop", data: { stopReason: "tool_use", p: "abcdefghijklmnop" } },
  { event: "metadata", data: { usage: { inputTokens: 85, outputTokens: 31, totalTokens: 116 }, metrics: { latencyMs: 530 }, p: "abcdefghijklmnopqrstu" } },
];

async function drain(stream: AsyncIterable<ConverseStreamOutput> | undefined): Promise<ConverseStreamOutput[]> {
  const events: ConverseStreamOutput[] = [];
  for await (const event of stream ?? []) events.push(event);
  return events;
}

describe("Converse", () => {
  test("the SDK reads the answer, its reasoning with signature and the usage with cache counters", async () => {
    fake.enqueue({ kind: "converse", body: converseBody });
    const out = await client().send(new ConverseCommand({ ...question, inferenceConfig: { maxTokens: 512 } }));
    expect(out.stopReason).toBe("end_turn");
    expect(out.output?.message?.content?.[1]?.text).toBe("The capital of France is Paris.");
    expect(out.output?.message?.content?.[0]?.reasoningContent?.reasoningText).toEqual({ text: "The user asks for a capital.", signature: "EqQBCkgIARABGAIiQFakeSignature" });
    expect(out.usage).toEqual({ inputTokens: 250, outputTokens: 50, totalTokens: 2150, cacheReadInputTokens: 1800, cacheWriteInputTokens: 50 });
    const seen = fake.last();
    expect(seen.path).toBe(`/model/${encodeURIComponent(MODEL)}/converse`);
    expect(seen.modelId).toBe(MODEL);
    expect(seen.auth).toEqual({ kind: "sigv4", accessKeyId: STATIC_KEY.accessKeyId });
    expect(seen.body.inferenceConfig).toEqual({ maxTokens: 512 });
  });

  test("temporary credentials: the session token is signed and checked", async () => {
    fake.enqueue({ kind: "converse", body: converseBody });
    const out = await client(SESSION_KEY).send(new ConverseCommand(question));
    expect(out.stopReason).toBe("end_turn");
    expect(fake.last().headers["x-amz-security-token"]).toBe(SESSION_KEY.sessionToken as string);
  });

  test("a Bedrock API key as a bearer token", async () => {
    fake.enqueue({ kind: "converse", body: converseBody });
    const bearer = new BedrockRuntimeClient({ region: REGION, endpoint: fake.origin, token: { token: API_KEY }, authSchemePreference: ["httpBearerAuth"], maxAttempts: 1, requestHandler: http1() });
    const out = await bearer.send(new ConverseCommand(question));
    expect(out.stopReason).toBe("end_turn");
    expect(fake.last().auth).toEqual({ kind: "api-key" });
    expect(fake.last().headers.authorization).toBe(`Bearer ${API_KEY}`);
  });

  test("an error reply is the SDK's typed exception with AWS's status", async () => {
    fake.enqueue({ kind: "error", type: "ValidationException", message: "The model returned the following errors: messages: at least one message is required" });
    const failure = await client().send(new ConverseCommand(question)).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ValidationException);
    expect((failure as ValidationException).$metadata.httpStatusCode).toBe(400);
    expect((failure as ValidationException).message).toContain("at least one message");
  });
});

describe("ConverseStream", () => {
  test("the SDK decodes every event of the binary stream in order", async () => {
    fake.enqueue({ kind: "stream", frames: streamFrames });
    const out = await client().send(new ConverseStreamCommand(question));
    const events = await drain(out.stream);
    expect(events.map((e) => Object.keys(e).find((k) => k !== "$unknown"))).toEqual(streamFrames.map((f) => f.event));
    const text = events.flatMap((e) => (e.contentBlockDelta?.delta?.text ? [e.contentBlockDelta.delta.text] : [])).join("");
    expect(text).toBe("The capital of France is Paris.");
    expect(events[4]?.contentBlockStart?.start?.toolUse).toEqual({ toolUseId: "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q", name: "get_weather" });
    expect(events[8]?.messageStop?.stopReason).toBe("tool_use");
    expect(events[9]?.metadata?.usage).toEqual({ inputTokens: 85, outputTokens: 31, totalTokens: 116 });
    expect(fake.last().path).toBe(`/model/${encodeURIComponent(MODEL)}/converse-stream`);
  });

  test("a throttling frame in the middle surfaces as the SDK's ThrottlingException, after the text before it", async () => {
    const frames = [...streamFrames.slice(0, 2), { event: "throttlingException", data: { message: "Too many tokens, please wait before trying again." } }];
    fake.enqueue({ kind: "stream", frames });
    const out = await client().send(new ConverseStreamCommand(question));
    const seen: string[] = [];
    const failure = await (async () => {
      for await (const event of out.stream ?? []) if (event.contentBlockDelta?.delta?.text) seen.push(event.contentBlockDelta.delta.text);
    })().catch((e: unknown) => e);
    expect(seen).toEqual(["The capital"]);
    expect(failure).toBeInstanceOf(ThrottlingException);
    expect((failure as ThrottlingException).message).toBe("Too many tokens, please wait before trying again.");
  });

  test("a model stream error frame surfaces as the SDK's ModelStreamErrorException", async () => {
    fake.enqueue({ kind: "stream", frames: [streamFrames[0]!, { event: "modelStreamErrorException", data: { message: "Model stream failed", originalStatusCode: 500 } }] });
    const out = await client().send(new ConverseStreamCommand(question));
    const failure = await drain(out.stream).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ModelStreamErrorException);
    expect((failure as ModelStreamErrorException).originalStatusCode).toBe(500);
  });
});

describe("what the fake refuses, as AWS does", () => {
  const refused = async (c: BedrockRuntimeClient) => {
    fake.enqueue({ kind: "converse", body: converseBody });
    const failure = (await c.send(new ConverseCommand(question)).catch((e: unknown) => e)) as { name: string; message: string; $metadata: { httpStatusCode?: number } };
    return { name: failure.name, status: failure.$metadata.httpStatusCode, message: failure.message };
  };

  test("a wrong secret: 403 InvalidSignatureException", async () => {
    const seen = await refused(client({ ...STATIC_KEY, secretAccessKey: "not-the-secret" }));
    expect(seen).toMatchObject({ name: "InvalidSignatureException", status: 403 });
    expect(seen.message).toContain("signature we calculated does not match");
  });

  test("an unknown access key: 403 UnrecognizedClientException", async () => {
    expect(await refused(client({ accessKeyId: "AKIAUNKNOWN000000000", secretAccessKey: "x" }))).toMatchObject({ name: "UnrecognizedClientException", status: 403 });
  });

  test("an expired session: 403 ExpiredTokenException", async () => {
    expect(await refused(client(EXPIRED_KEY))).toMatchObject({ name: "ExpiredTokenException", status: 403 });
  });

  test("a signature scoped to another region: 403 InvalidSignatureException", async () => {
    expect(await refused(client(STATIC_KEY, "eu-west-1"))).toMatchObject({ name: "InvalidSignatureException", status: 403 });
  });

  test("a wrong API key: 403", async () => {
    const bearer = new BedrockRuntimeClient({ region: REGION, endpoint: fake.origin, token: { token: "ABSK-wrong" }, authSchemePreference: ["httpBearerAuth"], maxAttempts: 1, requestHandler: http1() });
    expect((await refused(bearer)).status).toBe(403);
  });
});

describe("the matrix's Bedrock fixtures read by the SDK", () => {
  const names: FixtureName[] = ["text", "tool-call", "parallel-tool-calls", "thinking", "max-tokens", "refusal"];
  for (const name of names) {
    test(`${name}: the Converse reply and the stream`, async () => {
      const f = fixture("bedrock", name);
      fake.enqueue({ kind: "converse", body: f.json });
      const whole = await client().send(new ConverseCommand(question));
      expect(whole.stopReason as string).toBe((f.json as { stopReason: string }).stopReason);
      expect(whole.output?.message?.content?.length).toBeGreaterThan(0);
      fake.enqueue({ kind: "stream", frames: f.sse });
      const events = await drain((await client().send(new ConverseStreamCommand(question))).stream);
      expect(events).toHaveLength(f.sse.length);
      expect(events.at(-1)?.metadata?.usage?.outputTokens).toBe(whole.usage?.outputTokens as number);
    });
  }

  test("error: the reply is the SDK's ThrottlingException, the stream ends in its ModelStreamErrorException", async () => {
    const f = fixture("bedrock", "error");
    const http = f.http as { body: { message: string } };
    fake.enqueue({ kind: "error", type: "ThrottlingException", message: http.body.message });
    expect(await client().send(new ConverseCommand(question)).catch((e: unknown) => e)).toBeInstanceOf(ThrottlingException);
    fake.enqueue({ kind: "stream", frames: f.sse });
    const out = await client().send(new ConverseStreamCommand(question));
    expect(await drain(out.stream).catch((e: unknown) => e)).toBeInstanceOf(ModelStreamErrorException);
  });
});
