/**
 * The `vertex` adapter against the fake Vertex AI endpoint and token endpoint (test/support/fake-vertex/, validated
 * with Google's and Anthropic's clients in vertex-fake-sdk.test.ts), driven through the gateway with the `openai`,
 * `@anthropic-ai/sdk` and `@openrouter/sdk` clients: Gemini and Claude models, a service-account key file (the JWT
 * bearer grant: one token request for concurrent calls, renewed before expiry, renewed once after a 401, a refused
 * key named in the log) and a fixed token, Vertex's 429 and an unknown model, a failure mid-stream, what Claude on
 * Vertex does not take (strict mode), presets and batches, the location in the listings, and the secrets nowhere.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import type { ConfigFile } from "../../core/config/file-schema.ts";
import { createLogger } from "../../core/logger.ts";
import { makeServiceAccount, type FakeServiceAccount } from "../support/fake-vertex/google-oauth.ts";
import { METADATA_PATH, startFakeVertex, type FakeVertex } from "../support/fake-vertex/server.ts";
import { ADMIN_KEY, startTestGateway, type TestGateway } from "../support/gateway.ts";
import { chatItem, submit, waitForBatch } from "../unit/batches/http-support.ts";
import { chatChunks, chatOnce, sdkClient } from "../support/openrouter-sdk.ts";

type Json = Record<string, any>;

const PROJECT = "acme-genai-prod";
const LOCATION = "us-east5";
const GEMINI = "gemini-2.5-flash";
const CLAUDE = "claude-sonnet-4-5@20250929";
const STATIC_TOKEN = "ya29.static-token-Vq93xLm2";
const PRICING = { prompt: 0.000003, completion: 0.000015 };
const QUESTION = "What is the capital of France?";

let fake: FakeVertex;
let gw: TestGateway;
let account: FakeServiceAccount;
let stranger: FakeServiceAccount;
let clock = Date.parse("2026-03-01T12:00:00Z");
const logs: string[] = [];
const dir = mkdtempSync(join(tmpdir(), "vertex-it-"));
let openai: OpenAI;
let anthropic: Anthropic;

function providers(): NonNullable<ConfigFile["providers"]> {
  const model = (id: string, upstream: string) => ({ id, upstream_model: upstream, pricing: PRICING, context_length: 200000 });
  const base = { adapter: "vertex", base_url: fake.endpoint, location: LOCATION, token_url: fake.tokenUrl };
  return [
    { id: "gcp", ...base, credentials: { service_account_file: join(dir, "key.json") }, models: [model("gcp/gemini", GEMINI), model("gcp/claude", CLAUDE)] },
    { id: "gcp-token", ...base, project: PROJECT, credentials: { access_token: { env: "VERTEX_ACCESS_TOKEN" } }, models: [model("gcp-token/gemini", GEMINI)] },
    // On a Google Cloud VM: the attached account's tokens from the metadata server (here the fake's).
    { id: "gcp-vm", ...base, project: PROJECT, token_url: `${fake.endpoint}${METADATA_PATH}`, credentials: { metadata_server: true }, models: [model("gcp-vm/gemini", GEMINI)] },
    { id: "gcp-bad", ...base, credentials: { service_account_file: join(dir, "stranger.json") }, models: [model("gcp-bad/gemini", GEMINI)] },
    // One model on two endpoints: the first names a model Vertex does not serve to this project.
    { id: "gcp-missing", ...base, project: PROJECT, credentials: { access_token: { env: "VERTEX_ACCESS_TOKEN" } }, models: [model("gcp/fallback", "gemini-0.1-retired")] },
    { id: "gcp-second", ...base, project: PROJECT, credentials: { access_token: { env: "VERTEX_ACCESS_TOKEN" } }, models: [model("gcp/fallback", GEMINI)] },
  ];
}

beforeAll(async () => {
  fake = await startFakeVertex({ project: PROJECT, location: LOCATION, models: { google: [GEMINI], anthropic: [CLAUDE] }, staticTokens: [STATIC_TOKEN], now: () => clock });
  account = makeServiceAccount(PROJECT, "https://oauth2.googleapis.com/token");
  stranger = makeServiceAccount(PROJECT, "https://oauth2.googleapis.com/token", "stranger");
  fake.oauth.accounts.push(account);
  writeFileSync(join(dir, "key.json"), JSON.stringify(account.keyFile));
  writeFileSync(join(dir, "stranger.json"), JSON.stringify(stranger.keyFile));
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logs.push(String(chunk));
      done();
    },
  });
  gw = await startTestGateway({
    file: { providers: providers(), routing: { max_retries: 0 }, batches: { poll_interval_ms: 20 } },
    env: { VERTEX_ACCESS_TOKEN: STATIC_TOKEN },
    overrides: { logger: createLogger("debug", sink), clock: { now: () => clock } },
  });
  openai = new OpenAI({ baseURL: gw.baseUrl, apiKey: gw.inferenceKey, maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: gw.baseUrl.replace(/\/v1$/, ""), apiKey: gw.inferenceKey, maxRetries: 0 });
});
afterAll(async () => {
  await gw.close();
  await fake.stop();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => fake.reset());

const ask = (model: string, content = QUESTION) => ({ model, messages: [{ role: "user" as const, content }] });

async function post(path: string, json: Json, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; body: Json; text: string }> {
  const res = await gw.request(path, { method: "POST", json, headers });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: res.headers.get("content-type")?.includes("json") ? (JSON.parse(text) as Json) : {}, text };
}

describe("Gemini and Claude on Vertex, with a service-account key", () => {
  test("Gemini from a chat client: generateContent under publishers/google, one token for concurrent calls, usage billed", async () => {
    const answers = await Promise.all(Array.from({ length: 5 }, () => openai.chat.completions.create(ask("gcp/gemini"))));
    for (const answer of answers) expect(answer.choices[0]!.message.content).toBe("The capital of France is Paris.");
    const usage = answers[0]!.usage as unknown as Json;
    expect(usage.cost).toBeCloseTo(usage.prompt_tokens * PRICING.prompt + usage.completion_tokens * PRICING.completion, 12);
    expect(fake.tokenRequests).toHaveLength(1);
    expect(fake.oauth.assertions[0]).toMatchObject({ iss: account.keyFile.client_email, aud: fake.tokenUrl, scope: "https://www.googleapis.com/auth/cloud-platform" });
    for (const seen of fake.requests) {
      expect(seen.path).toBe(`/v1/projects/${PROJECT}/locations/${LOCATION}/publishers/google/models/${GEMINI}:generateContent`);
      expect(seen.headers.authorization).toStartWith("Bearer ya29.fake-");
    }
  });

  test("Gemini streamed to a chat client: streamGenerateContent?alt=sse", async () => {
    let text = "";
    for await (const chunk of await openai.chat.completions.create({ ...ask("gcp/gemini"), stream: true })) text += chunk.choices[0]?.delta.content ?? "";
    expect(text).toBe("The capital of France is Paris.");
    expect([fake.requests[0]!.method, fake.requests[0]!.query]).toEqual(["streamGenerateContent", "alt=sse"]);
  });

  test("Claude from a Messages client, collected and streamed: rawPredict and streamRawPredict, no model in the body", async () => {
    const message = await anthropic.messages.create({ model: "gcp/claude", max_tokens: 200, messages: [{ role: "user", content: QUESTION }] });
    expect(message.content).toEqual([{ type: "text", text: "The capital of France is Paris.", citations: null } as never]);
    expect(message.stop_reason).toBe("end_turn");
    const streamed = await anthropic.messages.stream({ model: "gcp/claude", max_tokens: 200, messages: [{ role: "user", content: QUESTION }] }).finalMessage();
    expect(streamed.content[0]).toMatchObject({ type: "text", text: "The capital of France is Paris." });
    expect(fake.requests.map((r) => [r.publisher, r.method, r.model, r.body.model, r.body.anthropic_version])).toEqual([
      ["anthropic", "rawPredict", CLAUDE, undefined, "vertex-2023-10-16"],
      ["anthropic", "streamRawPredict", CLAUDE, undefined, "vertex-2023-10-16"],
    ]);
  });

  test("Claude's thinking and a tool call round-trip: the signature goes back to Vertex as it came", async () => {
    const tools = [{ name: "get_weather", input_schema: { type: "object" as const, properties: { city: { type: "string" } } } }];
    const question = { role: "user" as const, content: "Weather in Paris? [vertex:reason]" };
    const first = await anthropic.messages.create({ model: "gcp/claude", max_tokens: 2000, thinking: { type: "enabled", budget_tokens: 1024 }, tools, messages: [question] });
    expect(first.stop_reason).toBe("tool_use");
    const thinking = first.content.find((b) => b.type === "thinking") as Anthropic.ThinkingBlock;
    const call = first.content.find((b) => b.type === "tool_use") as Anthropic.ToolUseBlock;
    await anthropic.messages.create({
      model: "gcp/claude",
      max_tokens: 2000,
      thinking: { type: "enabled", budget_tokens: 1024 },
      tools,
      messages: [question, { role: "assistant", content: first.content }, { role: "user", content: [{ type: "tool_result", tool_use_id: call.id, content: '{"c":18}' }] }],
    });
    const sent = (fake.requests[1]!.body.messages as Json[])[1]!.content as Json[];
    expect(sent[0]).toEqual({ type: "thinking", thinking: thinking.thinking, signature: thinking.signature });
    expect(sent[1]).toMatchObject({ type: "tool_use", id: call.id, name: "get_weather" });
  });

  test("the token is renewed before it expires; a token Vertex refuses (401) is renewed once and the call goes through", async () => {
    await openai.chat.completions.create(ask("gcp/gemini"));
    const issued = () => [...fake.oauth.issued.keys()];
    const bearer = () => fake.requests.at(-1)!.headers.authorization;
    const first = bearer();
    const before = issued().length;
    clock += (3599 - 290) * 1000;
    await openai.chat.completions.create(ask("gcp/gemini"));
    expect(bearer()).toBe(first);
    for (let i = 0; i < 200 && issued().length === before; i++) await Bun.sleep(5);
    expect(issued()).toHaveLength(before + 1);
    // The fake has issued the new token; the gateway may still be reading the answer: calls take it once it is in.
    let renewed = false;
    for (let i = 0; i < 50 && !renewed; i++) {
      await openai.chat.completions.create(ask("gcp/gemini"));
      renewed = bearer() === `Bearer ${issued().at(-1)}`;
      if (!renewed) await Bun.sleep(10);
    }
    expect(renewed).toBe(true);
    // One renewal, however many calls it took for its answer to arrive.
    expect(issued()).toHaveLength(before + 1);

    const revoked = issued().at(-1)!;
    fake.oauth.revoke(revoked);
    const calls = fake.seen.length;
    const asked = fake.tokenRequests.length;
    const answer = await openai.chat.completions.create(ask("gcp/gemini"));
    expect(answer.choices[0]!.message.content).toBe("The capital of France is Paris.");
    // The refused call, one token request, the call again with the new token.
    expect(fake.seen.slice(calls).map((line) => line.split(" ")[1]!.split(":").at(-1))).toEqual(["generateContent", "/token", "generateContent"]);
    expect(fake.tokenRequests).toHaveLength(asked + 1);
    expect(bearer()).not.toBe(`Bearer ${revoked}`);
  });

  test("Google refusing the key: a retryable 502 for the client, the log names credentials, no key material anywhere", async () => {
    const reply = await post("/chat/completions", ask("gcp-bad/gemini"));
    expect(reply.status).toBe(502);
    expect(reply.body.error.message).toBe("Upstream provider could not authenticate: Google refused the gateway's credentials");
    expect(logs.some((line) => line.includes("check credentials") && line.includes("invalid_grant"))).toBe(true);
    expect(fake.requests).toHaveLength(0);
    const keyLine = stranger.keyFile.private_key!.split("\n")[1]!;
    for (const text of [reply.text, ...logs]) expect(text).not.toContain(keyLine);
  });
});

describe("a fixed access token", () => {
  test("sent as it is; the other clients", async () => {
    const { sdk } = sdkClient(gw, gw.inferenceKey);
    const result = await chatOnce(sdk, { model: "gcp-token/gemini", messages: [{ role: "user", content: QUESTION }] });
    expect(result.choices[0]?.message.content).toBe("The capital of France is Paris.");
    const chunks = await chatChunks(sdk, { model: "gcp-token/gemini", messages: [{ role: "user", content: QUESTION }] });
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? "").join("")).toBe("The capital of France is Paris.");
    const response = await openai.responses.create({ model: "gcp-token/gemini", input: QUESTION });
    expect(response.output_text).toBe("The capital of France is Paris.");
    for (const seen of fake.requests) expect(seen.headers.authorization).toBe(`Bearer ${STATIC_TOKEN}`);
    expect(fake.tokenRequests).toHaveLength(0);
  });
});

describe("the metadata server", () => {
  test("the attached account's token, asked once with Metadata-Flavor: Google, sent as the bearer", async () => {
    await Promise.all([openai.chat.completions.create(ask("gcp-vm/gemini")), openai.chat.completions.create(ask("gcp-vm/gemini"))]);
    expect(fake.seen.filter((line) => line.startsWith(`GET ${METADATA_PATH}`))).toHaveLength(1);
    for (const seen of fake.requests) expect(seen.headers.authorization).toStartWith("Bearer ya29.fake-vm-");
  });
});

describe("Vertex's errors", () => {
  test("429 RESOURCE_EXHAUSTED: rate_limit_exceeded, for Gemini and Claude", async () => {
    const gemini = await post("/chat/completions", ask("gcp/gemini", "Hi [vertex:429]"));
    expect([gemini.status, gemini.body.error.metadata.error_type]).toEqual([429, "rate_limit_exceeded"]);
    const claude = await post("/messages", { ...ask("gcp/claude", "Hi [vertex:429]"), max_tokens: 100 });
    expect(claude.status).toBe(429);
    expect(claude.body.error.type).toBe("rate_limit_error");
  });

  test("a model Vertex does not serve to this project: the next endpoint serves; alone, a 502", async () => {
    const completion = await openai.chat.completions.create({ ...ask("gcp/fallback"), provider: { order: ["gcp-missing", "gcp-second"] } } as never);
    expect(completion.choices[0]!.message.content).toBe("The capital of France is Paris.");
    expect(fake.seen.filter((line) => line.includes(":generateContent"))).toHaveLength(2);
    const direct = await post("/chat/completions", { ...ask("gcp/fallback"), provider: { order: ["gcp-missing"], allow_fallbacks: false } });
    expect(direct.status).toBe(502);
    expect(direct.body.error.message).toBe("Upstream provider does not serve this model in this project and location");
  });

  test("Claude failing after some text: the Messages stream's error event, after the partial answer", async () => {
    const reply = await post("/messages", { ...ask("gcp/claude", "Go [vertex:stream-error]"), max_tokens: 100, stream: true });
    expect(reply.status).toBe(200);
    expect(reply.text).toContain('"text":"The capital"');
    expect(reply.text).toContain("event: error");
    expect(reply.text).toContain("overloaded_error");
  });
});

describe("what Claude on Vertex does not take", () => {
  test("speed: not sent, a warning; strict mode refuses before Vertex is called", async () => {
    const body = { ...ask("gcp/claude"), max_tokens: 100, speed: "fast" };
    const lenient = await post("/messages", body, { "x-service-metadata": "enabled" });
    expect(lenient.status).toBe(200);
    expect(JSON.stringify(lenient.body)).toContain("speed");
    expect(fake.requests[0]!.body.speed).toBeUndefined();
    const strict = await post("/messages", body, { "x-service-strict": "true" });
    expect(strict.status).toBe(422);
    expect(fake.requests).toHaveLength(1);
  });
});

describe("presets and batches", () => {
  test("a preset naming a Vertex model, and a batch of requests to one, are served by Vertex", async () => {
    const made = await gw.request("/presets/vertex-terse/chat/completions", { method: "POST", key: ADMIN_KEY, json: { model: "gcp/claude", messages: [{ role: "system", content: "Be terse." }] } });
    expect(made.status).toBe(200);
    const reply = await openai.chat.completions.create({ model: "@preset/vertex-terse", messages: [{ role: "user", content: QUESTION }] });
    expect(reply.choices[0]!.message.content).toBe("The capital of France is Paris.");
    expect(fake.requests[0]!.body.system).toEqual("Be terse.");
    const batch = await submit(gw, { endpoint: "/chat/completions", model: "gcp/gemini", requests: [chatItem("a", "first"), chatItem("b", "second")] });
    const done = (await waitForBatch(gw, batch.id, (b) => b.status === "completed" || b.status === "failed")).batch;
    expect(done.request_counts).toEqual({ completed: 2, failed: 0, total: 2 });
    expect(fake.requests.filter((r) => r.publisher === "google")).toHaveLength(2);
  });
});

describe("listings", () => {
  test("GET /providers, /models and the endpoints show the location as the region; no secret anywhere", async () => {
    const listed = (await (await gw.request("/providers")).json()) as Json;
    const byName = Object.fromEntries((listed.data as Json[]).map((p) => [p.name, p]));
    expect(byName.gcp).toMatchObject({ adapter: "vertex", region: LOCATION });
    const models = (await (await gw.request("/models")).json()) as Json;
    const model = (models.data as Json[]).find((m) => m.id === "gcp/claude")!;
    expect(model.endpoints[0]).toMatchObject({ provider: "gcp", adapter: "vertex", region: LOCATION });
    const endpoints = (await (await gw.request("/models/gcp/gemini/endpoints")).json()) as Json;
    expect(endpoints.data.endpoints[0]).toMatchObject({ provider_name: "gcp", region: LOCATION });
    const admin = await (await fetch(`${gw.origin}/admin`)).text();
    const keyLine = account.keyFile.private_key!.split("\n")[1]!;
    for (const text of [JSON.stringify(listed), JSON.stringify(models), JSON.stringify(endpoints), admin, ...logs]) {
      expect(text).not.toContain(keyLine);
      expect(text).not.toContain(STATIC_TOKEN);
    }
  });
});
