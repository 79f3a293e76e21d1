/**
 * Idempotent requests in the other two wire formats, with their official clients: Anthropic Messages
 * through `@anthropic-ai/sdk` and OpenAI Responses through `openai`, collected and streamed — a retry gets the same
 * reply and no upstream call.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import type { TestGateway } from "../../support/gateway.ts";
import { ANSWER, startCountingUpstream, untilReceived, type CountingUpstream } from "./counting-upstream.ts";
import { billedGenerations, MODEL, startIdempotencyGateway } from "./setup.ts";

let upstream: CountingUpstream;
let gw: TestGateway;
let anthropic: Anthropic;
let openai: OpenAI;
let run = 0;

const freshKey = () => `fmt-${Date.now()}-${++run}`;
const withKey = (key: string) => ({ headers: { "Idempotency-Key": key } });

beforeAll(async () => {
  upstream = startCountingUpstream();
  gw = await startIdempotencyGateway(upstream.baseUrl);
  anthropic = new Anthropic({ baseURL: `${gw.origin}/api`, apiKey: gw.inferenceKey, maxRetries: 0 });
  openai = new OpenAI({ baseURL: gw.baseUrl, apiKey: gw.inferenceKey, maxRetries: 0 });
});

afterAll(async () => {
  await gw.close();
  upstream.stop();
});

beforeEach(() => upstream.reset());

describe("Messages (@anthropic-ai/sdk)", () => {
  const params = { model: MODEL, max_tokens: 100, messages: [{ role: "user" as const, content: "hello" }] };

  test("a retry of a finished message gets the same message, billed once", async () => {
    const key = freshKey();
    const before = await billedGenerations(gw);
    const first = await anthropic.messages.create(params, withKey(key));
    const second = await anthropic.messages.create(params, withKey(key));
    expect(first.content).toEqual([expect.objectContaining({ type: "text", text: ANSWER })]);
    expect(second).toEqual(first);
    expect(upstream.bodies).toHaveLength(1);
    expect(await billedGenerations(gw)).toBe(before + 1);
  });

  test("a retry of a stream, also while it runs, gets the same events", async () => {
    upstream.chunkDelayMs = 40;
    const key = freshKey();
    const events = async () => {
      const seen: string[] = [];
      for await (const event of await anthropic.messages.create({ ...params, stream: true }, withKey(key))) seen.push(JSON.stringify(event));
      return seen;
    };
    const first = events();
    await untilReceived(upstream);
    const joined = events();
    const [a, b] = await Promise.all([first, joined]);
    const replayed = await events();
    expect(a.some((e) => e.includes("five"))).toBe(true);
    expect(b).toEqual(a);
    expect(replayed).toEqual(a);
    expect(upstream.bodies).toHaveLength(1);
  });

  test("another body under the same key: 409 with the error type precondition_failed", async () => {
    const key = freshKey();
    await anthropic.messages.create(params, withKey(key));
    const error = (await anthropic.messages.create({ ...params, max_tokens: 99 }, withKey(key)).catch((e: unknown) => e)) as InstanceType<typeof Anthropic.APIError>;
    expect(error).toBeInstanceOf(Anthropic.ConflictError);
    expect(JSON.stringify(error.error)).toContain("precondition_failed");
    expect(upstream.bodies).toHaveLength(1);
  });
});

describe("Responses (openai)", () => {
  const params = { model: MODEL, input: "hello" };

  test("a retry of a finished response gets the same response", async () => {
    const key = freshKey();
    const first = await openai.responses.create(params, withKey(key));
    const second = await openai.responses.create(params, withKey(key));
    expect(first.output_text).toBe(ANSWER);
    expect(second).toEqual(first);
    expect(upstream.bodies).toHaveLength(1);
  });

  test("a retry of a finished stream gets the same events", async () => {
    const key = freshKey();
    const events = async () => {
      const seen: unknown[] = [];
      for await (const event of await openai.responses.create({ ...params, stream: true }, withKey(key))) seen.push(event);
      return seen;
    };
    const first = await events();
    const second = await events();
    expect(first.length).toBeGreaterThan(3);
    expect(second).toEqual(first);
    expect(upstream.bodies).toHaveLength(1);
  });
});
