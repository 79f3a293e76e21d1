/**
 * Errors as the official clients read them: every error on a Messages path — from the
 * pipeline, from the edge before any format is known, from the size check before the body is read — carries
 * Anthropic's `type: "error"` and `error.type` beside the envelope's `code`, `message` and `metadata`, so the
 * Anthropic SDK's `err.type` is set; and a client whose base URL is one segment off is told which one to use.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";

type ApiError = InstanceType<typeof Anthropic.APIError>;

let gw: TestGateway;
let anthropic: Anthropic;

beforeAll(async () => {
  gw = await startTestGateway({ file: { server: { body_limit_bytes: 4096 } } });
  anthropic = new Anthropic({ baseURL: gw.origin + "/api", apiKey: gw.inferenceKey, maxRetries: 0 });
});
afterAll(async () => gw.close());

const hello = { model: "simulator/small", max_tokens: 16, messages: [{ role: "user" as const, content: "hi" }] };

async function failure(pending: Promise<unknown>): Promise<ApiError> {
  const thrown = await pending.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(thrown).toBeInstanceOf(Anthropic.APIError);
  return thrown as ApiError;
}

/** The body the client received: Anthropic's fields and ours side by side. */
function expectBothShapes(error: ApiError, status: number, type: string): void {
  expect(error.status).toBe(status);
  expect(String(error.type)).toBe(type);
  // A copy: Bun's toMatchObject writes its asymmetric matchers into the object it is given.
  const body = structuredClone(error.error) as { type: string; error: Record<string, unknown> };
  expect(body).toMatchObject({ type: "error", error: { type, code: status } });
  expect(typeof body.error.message).toBe("string");
  expect(body.error.metadata).toMatchObject({ error_type: expect.any(String) });
}

test("a wrong key (refused at the edge before the body is read) is an authentication_error", async () => {
  const client = new Anthropic({ baseURL: gw.origin + "/api", apiKey: "sk-not-a-key", maxRetries: 0 });
  expectBothShapes(await failure(client.messages.create(hello)), 401, "authentication_error");
});

test("a body the schema refuses is an invalid_request_error naming the field", async () => {
  const error = await failure(anthropic.messages.create({ ...hello, max_tokens: -5 }));
  expectBothShapes(error, 400, "invalid_request_error");
  expect(error.message).toContain("max_tokens");
});

test("an error of the pipeline (an unknown model) has both shapes too", async () => {
  expectBothShapes(await failure(anthropic.messages.create({ ...hello, model: "nobody/nothing" })), 400, "invalid_request_error");
});

test("a body over the size limit (refused from its declared length) is request_too_large", async () => {
  const error = await failure(anthropic.messages.create({ ...hello, messages: [{ role: "user", content: "x".repeat(5000) }] }));
  expectBothShapes(error, 413, "request_too_large");
});

test("an Anthropic client whose base URL ends in /api/v1 is told to use …/api (404, not a bare one)", async () => {
  const tooDeep = new Anthropic({ baseURL: gw.baseUrl, apiKey: gw.inferenceKey, maxRetries: 0 });
  const error = await failure(tooDeep.messages.create(hello));
  expect(error).toBeInstanceOf(Anthropic.NotFoundError);
  expectBothShapes(error, 404, "not_found_error");
  expect(error.message).toContain(`set the client's base URL to ${gw.origin}/api (this path has /v1 twice)`);
  expect((error.error as { error: { metadata: { base_url: string } } }).error.metadata.base_url).toBe(`${gw.origin}/api`);
  // count_tokens the same way.
  const counted = await failure(tooDeep.messages.countTokens(hello));
  expect(counted.message).toContain(`set the client's base URL to ${gw.origin}/api`);
});

test("an OpenAI client one segment too deep, or at the bare origin, is told to use …/api/v1", async () => {
  for (const baseURL of [gw.baseUrl + "/v1", gw.origin, gw.origin + "/v1"]) {
    const openai = new OpenAI({ baseURL, apiKey: gw.inferenceKey, maxRetries: 0 });
    const error = await openai.chat.completions.create({ model: "simulator/small", messages: [{ role: "user", content: "hi" }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect((error as InstanceType<typeof OpenAI.NotFoundError>).message).toContain(`set the client's base URL to ${gw.origin}/api/v1`);
  }
});

test("a path that ends with no route of ours stays a plain 404 in our envelope", async () => {
  const res = await gw.request("/nothing-here");
  expect(res.status).toBe(404);
  const body = (await res.json()) as Record<string, unknown>;
  expect(body.type).toBeUndefined();
  expect(body).toMatchObject({ error: { code: 404, message: "No route for GET /api/v1/nothing-here" } });
});

test("behind a proxy the hint names the origin the client used (X-Forwarded-Proto / -Host)", async () => {
  const res = await gw.request("/v1/chat/completions", { method: "POST", json: {}, headers: { "x-forwarded-proto": "https", "x-forwarded-host": "llm.example.com" } });
  expect(res.status).toBe(404);
  const body = (await res.json()) as { error: { message: string; metadata: { base_url: string } } };
  expect(body.error.metadata.base_url).toBe("https://llm.example.com/api/v1");
  expect(body.error.message).toContain("set the client's base URL to https://llm.example.com/api/v1 (this path has /v1 twice)");
});
