/**
 * `POST /messages/count_tokens` through the Anthropic SDK's `countTokens`: Anthropic's shape, an
 * inference key, the validation of /messages, and never an upstream call or a charge.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import { ADMIN_KEY, startTestGateway, type TestGateway } from "../support/gateway.ts";
import { startScriptedModel, type ScriptedModel } from "../support/scripted-model.ts";

type ApiError = InstanceType<typeof Anthropic.APIError>;

const MODEL = "acme/model-a";
let upstream: ScriptedModel;
let gw: TestGateway;
let client: Anthropic;

beforeAll(async () => {
  upstream = startScriptedModel(() => ({ text: "unused" }));
  gw = await startTestGateway({
    file: {
      providers: [{ id: "acme", adapter: "openai", base_url: upstream.baseUrl, api_key: "k", models: [{ id: MODEL, upstream_model: "m", pricing: { prompt: 0.001, completion: 0.001 } }] }],
    },
  });
  client = new Anthropic({ baseURL: gw.origin + "/api", apiKey: gw.inferenceKey, maxRetries: 0 });
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
});

const hello = { model: MODEL, messages: [{ role: "user" as const, content: "Hello, world" }] };

test("counts the prompt in Anthropic's shape, without calling the upstream or charging the key", async () => {
  const counted = await client.messages.countTokens(hello);
  // o200k_base: "Hello" "," " world" = 3, plus 4 framing tokens for the message and 3 priming the reply.
  expect(counted).toEqual({ input_tokens: 10 });
  expect(upstream.bodies).toHaveLength(0);
  const key = (await (await gw.request("/key")).json()) as { data: { usage: number } };
  expect(key.data.usage).toBe(0);
});

test("system, tools and more messages all count", async () => {
  const base = (await client.messages.countTokens(hello)).input_tokens;
  const withSystem = (await client.messages.countTokens({ ...hello, system: "You answer in one short sentence." })).input_tokens;
  const tool = { name: "get_weather", description: "Weather of a city", input_schema: { type: "object" as const, properties: { city: { type: "string" } } } };
  const withTools = (await client.messages.countTokens({ ...hello, tools: [tool] })).input_tokens;
  const longer = (
    await client.messages.countTokens({
      model: MODEL,
      messages: [...hello.messages, { role: "assistant", content: "Hello to you." }, { role: "user", content: [{ type: "text", text: "And what is the weather?" }] }],
    })
  ).input_tokens;
  expect(withSystem).toBeGreaterThan(base);
  expect(withTools).toBeGreaterThan(base + 10);
  expect(longer).toBeGreaterThan(base + 8);
});

test("refusals read as the Anthropic SDK's errors: no key, a management key, a bad body, an unknown model", async () => {
  const anonymous = new Anthropic({ baseURL: gw.origin + "/api", apiKey: "sk-wrong-key", maxRetries: 0 });
  const unauthorized = await anonymous.messages.countTokens(hello).catch((e: unknown) => e);
  expect(unauthorized).toBeInstanceOf(Anthropic.AuthenticationError);
  expect((unauthorized as ApiError).type).toBe("authentication_error");

  const management = new Anthropic({ baseURL: gw.origin + "/api", apiKey: ADMIN_KEY, maxRetries: 0 });
  const forbidden = await management.messages.countTokens(hello).catch((e: unknown) => e);
  expect(forbidden).toBeInstanceOf(Anthropic.PermissionDeniedError);

  const invalid = await client.messages.countTokens({ model: MODEL, messages: "hi" } as never).catch((e: unknown) => e);
  expect(invalid).toBeInstanceOf(Anthropic.BadRequestError);
  expect((invalid as ApiError).type).toBe("invalid_request_error");
  expect((invalid as ApiError).message).toContain("messages");

  const unknown = await client.messages.countTokens({ ...hello, model: "acme/nope" }).catch((e: unknown) => e);
  expect(unknown).toBeInstanceOf(Anthropic.BadRequestError);
  expect((unknown as ApiError).message).toContain("acme/nope");
});

test("the OpenAPI document lists the route with the Messages body", async () => {
  const doc = (await (await fetch(gw.origin + "/docs/json")).json()) as { paths: Record<string, { post?: { requestBody?: unknown } }> };
  expect(doc.paths["/api/v1/messages/count_tokens"]?.post?.requestBody).toBeDefined();
});
