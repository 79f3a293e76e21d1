/**
 * Strict translation mode through HTTP: the `X-Service-Strict` header, the config default `strict`
 * and which one wins, what does not count (a default the gateway filled in, warnings that are no translation), and
 * what the official clients see. Every warning site is covered in test/conformance/strict.test.ts.
 */
import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { replyOf } from "../support/fake-upstream/fixtures.ts";
import { startFakeUpstream, type FakeUpstream } from "../support/fake-upstream/server.ts";
import { ADMIN_KEY, startTestGateway, type TestGateway } from "../support/gateway.ts";
import { MODEL, providersFor } from "../conformance/support/setup.ts";

type Json = Record<string, unknown>;
const QUESTION = "What is the capital of France?";

let fake: FakeUpstream;
/** Strict by default (config `strict: true`). */
let strictGw: TestGateway;
/** Lenient by default (no `strict` in the config). */
let lenientGw: TestGateway;
beforeAll(async () => {
  fake = await startFakeUpstream();
  const routing = { max_retries: 0, breaker: { failure_threshold: 1_000_000 } };
  strictGw = await startTestGateway({ file: { providers: providersFor(fake), routing, strict: true } });
  lenientGw = await startTestGateway({ file: { providers: providersFor(fake), routing } });
});
afterAll(async () => {
  await strictGw.close();
  await lenientGw.close();
  await fake.stop();
});
beforeEach(() => fake.reset());

async function chat(gw: TestGateway, body: Json, headers: Record<string, string> = {}): Promise<{ status: number; body: Json }> {
  const res = await gw.request("/chat/completions", {
    method: "POST",
    json: { messages: [{ role: "user", content: QUESTION }], ...body },
    headers: { "x-service-metadata": "enabled", ...headers },
  });
  return { status: res.status, body: (await res.json()) as Json };
}

const warningFields = (body: Json) => (((body.service_metadata as Json | undefined)?.warnings as Array<{ field?: string }> | undefined) ?? []).map((w) => w.field);

describe("config default strict: true", () => {
  test("refuses without the header: 422 naming the field, nothing sent upstream", async () => {
    const reply = await chat(strictGw, { model: MODEL.gemini, logit_bias: { "50256": -100 } });
    expect(reply.status).toBe(422);
    const error = reply.body.error as { message: string; metadata: Json };
    expect(error.metadata.error_type).toBe("unprocessable");
    expect(error.metadata.param).toBe("logit_bias");
    expect(error.message).toContain("logit_bias");
    expect(error.message).toContain("up-gemini");
    expect(fake.requests).toHaveLength(0);
  });

  test("X-Service-Strict: false turns it off for the request: answered, with the warning", async () => {
    fake.enqueue(replyOf("gemini", "text", false));
    const reply = await chat(strictGw, { model: MODEL.gemini, logit_bias: { "50256": -100 } }, { "X-Service-Strict": "false" });
    expect(reply.status).toBe(200);
    expect(warningFields(reply.body)).toContain("logit_bias");
    expect(fake.requests).toHaveLength(1);
  });

  test("a request that loses nothing is answered as usual", async () => {
    fake.enqueue(replyOf("openai", "text", false));
    const reply = await chat(strictGw, { model: MODEL.openai, temperature: 0.2 });
    expect(reply.status).toBe(200);
    expect((fake.last().body as Json).temperature).toBe(0.2);
  });
});

describe("X-Service-Strict on a lenient gateway", () => {
  test("true refuses; absent answers with the warning", async () => {
    const strict = await chat(lenientGw, { model: MODEL.gemini, user: "end-user-42" }, { "X-Service-Strict": "true" });
    expect(strict.status).toBe(422);
    expect((strict.body.error as { metadata: Json }).metadata.fields).toEqual(["user"]);
    expect(fake.requests).toHaveLength(0);

    fake.enqueue(replyOf("gemini", "text", false));
    const lenient = await chat(lenientGw, { model: MODEL.gemini, user: "end-user-42" });
    expect(lenient.status).toBe(200);
    expect(warningFields(lenient.body)).toContain("user");
  });

  test("a value other than true/false is a 400 naming the header", async () => {
    const reply = await chat(lenientGw, { model: MODEL.openai }, { "X-Service-Strict": "yes" });
    expect(reply.status).toBe(400);
    const error = reply.body.error as { message: string; metadata: Json };
    expect(error.metadata.param).toBe("X-Service-Strict");
    expect(error.message).toContain("X-Service-Strict");
    expect(fake.requests).toHaveLength(0);
  });

  test("a decoder's loss is refused before any upstream is chosen; the message lists every field", async () => {
    const reply = await chat(lenientGw, { model: MODEL.openai, frobnicate: 1, max_tokens: 10, max_completion_tokens: 20 }, { "X-Service-Strict": "true" });
    expect(reply.status).toBe(422);
    const error = reply.body.error as { message: string; metadata: { fields: string[]; warnings: Array<{ code: string }> } };
    expect(error.metadata.fields).toEqual(["frobnicate", "max_tokens"]);
    expect(error.metadata.warnings.map((w) => w.code)).toEqual(["unknown_field", "conflicting_field"]);
    expect(fake.requests).toHaveLength(0);
  });
});

describe("a key's own default", () => {
  async function adminJson(method: string, path: string, json: Json): Promise<Json> {
    const res = await lenientGw.request(path, { method, json, key: ADMIN_KEY });
    expect(res.status).toBeLessThan(300);
    return (await res.json()) as Json;
  }

  test("strict: true on a key applies without the header; the header still decides; null gives it back to the config", async () => {
    const created = await adminJson("POST", "/keys", { name: "strict key", strict: true });
    const key = created.key as string;
    const hash = (created.data as Json).hash as string;
    expect((created.data as Json).strict).toBe(true);
    const ask = (headers: Record<string, string> = {}) =>
      lenientGw.request("/chat/completions", { method: "POST", key, headers, json: { model: MODEL.gemini, messages: [{ role: "user", content: QUESTION }], user: "end-user-42" } });

    expect((await ask()).status).toBe(422);
    expect(fake.requests).toHaveLength(0);
    fake.enqueue(replyOf("gemini", "text", false));
    expect((await ask({ "X-Service-Strict": "false" })).status).toBe(200);

    const patched = await adminJson("PATCH", `/keys/${hash}`, { strict: null });
    expect(patched.data as Json).not.toHaveProperty("strict");
    fake.enqueue(replyOf("gemini", "text", false));
    expect((await ask()).status).toBe(200);
  });
});

describe("what strict mode does not refuse", () => {
  test("Anthropic's required max_tokens filled in from the config (the client sent none): `defaulted`, not a loss", async () => {
    fake.enqueue(replyOf("anthropic", "text", false));
    const reply = await chat(lenientGw, { model: MODEL.anthropic }, { "X-Service-Strict": "true" });
    expect(reply.status).toBe(200);
    expect(warningFields(reply.body)).toContain("max_tokens");
    expect((fake.last().body as Json).max_tokens).toBeGreaterThan(0);
  });

  test("routing skipping an unknown fallback model is no translation", async () => {
    fake.enqueue(replyOf("openai", "text", false));
    const reply = await chat(lenientGw, { model: MODEL.openai, models: ["conf/no-such-model"] }, { "X-Service-Strict": "true" });
    expect(reply.status).toBe(200);
    expect(warningFields(reply.body)).toContain("models");
  });
});

describe("the official clients", () => {
  test("openai: a strict chat request Gemini cannot carry fails with the SDK's 422 error", async () => {
    const client = new OpenAI({ baseURL: lenientGw.baseUrl, apiKey: lenientGw.inferenceKey, maxRetries: 0, defaultHeaders: { "X-Service-Strict": "true" } });
    const error = await client.chat.completions
      .create({ model: MODEL.gemini, messages: [{ role: "user", content: QUESTION }], logit_bias: { "50256": -100 } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.UnprocessableEntityError);
    expect((error as InstanceType<typeof OpenAI.UnprocessableEntityError>).message).toContain("logit_bias");
    expect(fake.requests).toHaveLength(0);
  });

  test("@anthropic-ai/sdk: a strict Messages request with top_k to a Responses upstream fails with the SDK's 422 error; streamed too", async () => {
    const client = new Anthropic({ baseURL: `${lenientGw.origin}/api`, apiKey: lenientGw.inferenceKey, maxRetries: 0, defaultHeaders: { "X-Service-Strict": "true" } });
    const params = { model: MODEL["openai-responses"], max_tokens: 64, top_k: 40, messages: [{ role: "user" as const, content: QUESTION }] };
    const error = await client.messages.create(params).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.UnprocessableEntityError);
    expect((error as Error).message).toContain("top_k");
    const streamed = await client.messages
      .stream(params)
      .finalMessage()
      .catch((e: unknown) => e);
    expect(streamed).toBeInstanceOf(Anthropic.UnprocessableEntityError);
    expect(fake.requests).toHaveLength(0);
  });
});
