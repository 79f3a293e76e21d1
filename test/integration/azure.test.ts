/**
 * The `azure` adapter against the fake Azure OpenAI resource (test/support/fake-azure/, validated with the official
 * client in azure-fake-sdk.test.ts), driven through the gateway with the `openai`, `@anthropic-ai/sdk` and
 * `@openrouter/sdk` clients: both URL styles, both APIs, the api key and Entra ID tokens (one token request for
 * concurrent calls, renewed before expiry, refusals named in the log), Azure's content filter on prompts (a 400
 * `content_policy_violation`) and on answers (each format's refusal, streamed and collected), its 429, a missing
 * deployment, what its schema refuses, the region in the listings, and the secrets nowhere.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { Writable } from "node:stream";
import type { ConfigFile } from "../../core/config/file-schema.ts";
import { createLogger } from "../../core/logger.ts";
import { startFakeAzure, type FakeAzure } from "../support/fake-azure/server.ts";
import { ADMIN_KEY, startTestGateway, type TestGateway } from "../support/gateway.ts";
import { chatItem, submit, waitForBatch } from "../unit/batches/http-support.ts";
import { chatChunks, chatOnce, sdkClient } from "../support/openrouter-sdk.ts";

type Json = Record<string, any>;

const KEY = "az-resource-key-7f3c9a1e5b2d4f60";
const SECRET = "entra-client-secret-Qv8~x2Lr";
const WRONG_SECRET = "entra-wrong-secret-Zt4~p9Kd";
const APP = { tenantId: "contoso-tenant", clientId: "11111111-2222-3333-4444-555555555555", clientSecret: SECRET };
const PRICING = { prompt: 0.000002, completion: 0.000008 };
const QUESTION = "What is the capital of France?";

let fake: FakeAzure;
let gw: TestGateway;
let clock = Date.parse("2026-03-01T12:00:00Z");
const logs: string[] = [];
let openai: OpenAI;
let anthropic: Anthropic;

function providers(fake: FakeAzure): NonNullable<ConfigFile["providers"]> {
  const model = (id: string, upstream: string) => ({ id, upstream_model: upstream, pricing: PRICING, context_length: 128000 });
  const entra = (secret: string) => ({ tenant_id: APP.tenantId, client_id: APP.clientId, client_secret: { env: secret }, token_url: fake.tokenUrl });
  return [
    { id: "az", adapter: "azure", base_url: `${fake.endpoint}/openai/v1`, api_key: { env: "AZURE_OPENAI_API_KEY" }, region: "eastus2", models: [model("az/gpt-4o", "gpt-4o-prod")] },
    {
      id: "az-entra",
      adapter: "azure",
      base_url: `${fake.endpoint}/openai`,
      api_version: "2024-10-21",
      entra: entra("AZURE_CLIENT_SECRET"),
      region: "swedencentral",
      models: [model("az-entra/gpt-4o", "gpt-4o-prod")],
    },
    { id: "az-resp", adapter: "azure", base_url: `${fake.endpoint}/openai/v1`, api: "responses", api_key: { env: "AZURE_OPENAI_API_KEY" }, models: [model("az-resp/gpt-5", "gpt-5-prod")] },
    {
      id: "az-resp-entra",
      adapter: "azure",
      base_url: `${fake.endpoint}/openai`,
      api_version: "2025-04-01-preview",
      api: "responses",
      entra: entra("AZURE_CLIENT_SECRET"),
      models: [model("az-resp-entra/gpt-5", "gpt-5-prod")],
    },
    { id: "az-bad", adapter: "azure", base_url: `${fake.endpoint}/openai/v1`, entra: entra("WRONG_SECRET"), models: [model("az-bad/gpt-4o", "gpt-4o-prod")] },
    // One model on two endpoints: the first names a deployment the resource does not have.
    { id: "az-missing", adapter: "azure", base_url: `${fake.endpoint}/openai/v1`, api_key: { env: "AZURE_OPENAI_API_KEY" }, models: [model("az/fallback", "no-such-deployment")] },
    { id: "az-second", adapter: "azure", base_url: `${fake.endpoint}/openai/v1`, api_key: { env: "AZURE_OPENAI_API_KEY" }, models: [model("az/fallback", "gpt-4o-prod")] },
  ];
}

beforeAll(async () => {
  fake = await startFakeAzure({ apiKey: KEY, entra: APP, deployments: { "gpt-4o-prod": "gpt-4o-2024-11-20", "gpt-5-prod": "gpt-5-2025-08-07" }, now: () => clock });
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logs.push(String(chunk));
      done();
    },
  });
  gw = await startTestGateway({
    file: { providers: providers(fake), routing: { max_retries: 0 }, batches: { poll_interval_ms: 20 } },
    env: { AZURE_OPENAI_API_KEY: KEY, AZURE_CLIENT_SECRET: SECRET, WRONG_SECRET },
    overrides: { logger: createLogger("debug", sink), clock: { now: () => clock } },
  });
  openai = new OpenAI({ baseURL: gw.baseUrl, apiKey: gw.inferenceKey, maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: gw.baseUrl.replace(/\/v1$/, ""), apiKey: gw.inferenceKey, maxRetries: 0 });
});
afterAll(async () => {
  await gw.close();
  await fake.stop();
});
beforeEach(() => fake.reset());

const ask = (model: string, content = QUESTION) => ({ model, messages: [{ role: "user" as const, content }] });

async function post(path: string, json: Json, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; body: Json; text: string }> {
  const res = await gw.request(path, { method: "POST", json, headers });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: res.headers.get("content-type")?.includes("json") ? (JSON.parse(text) as Json) : {}, text };
}

describe("the two URL styles and the two credentials", () => {
  test("v1 style with the api key: the deployment as model, the key in api-key, no bearer; usage billed", async () => {
    const completion = (await openai.chat.completions.create(ask("az/gpt-4o"))) as unknown as Json;
    expect(completion.choices[0].message.content).toBe("The capital of France is Paris.");
    expect(completion.usage.cost).toBeCloseTo(completion.usage.prompt_tokens * PRICING.prompt + completion.usage.completion_tokens * PRICING.completion, 12);
    const seen = fake.requests[0]!;
    expect([seen.style, seen.api, seen.path, seen.query, seen.body.model, seen.auth]).toEqual(["v1", "chat", "/openai/v1/chat/completions", "", "gpt-4o-prod", "api-key"]);
    expect(seen.headers["api-key"]).toBe(KEY);
    expect(seen.headers.authorization).toBeUndefined();
  });

  test("deployments style with Entra ID: the deployment in the path, api-version in the query, one token for concurrent calls", async () => {
    const answers = await Promise.all(Array.from({ length: 6 }, () => openai.chat.completions.create(ask("az-entra/gpt-4o"))));
    for (const answer of answers) expect(answer.choices[0]!.message.content).toBe("The capital of France is Paris.");
    expect(fake.tokenRequests).toHaveLength(1);
    expect(fake.tokenRequests[0]!.form.get("scope")).toBe("https://cognitiveservices.azure.com/.default");
    expect(fake.tokenRequests[0]!.form.get("client_id")).toBe(APP.clientId);
    expect(fake.requests).toHaveLength(6);
    for (const seen of fake.requests) {
      expect([seen.style, seen.path, seen.query, seen.auth]).toEqual(["deployments", "/openai/deployments/gpt-4o-prod/chat/completions", "api-version=2024-10-21", "entra"]);
      expect(seen.headers["api-key"]).toBeUndefined();
    }
  });

  test("the token is renewed in the background before it expires, and an expired one is never sent", async () => {
    await openai.chat.completions.create(ask("az-entra/gpt-4o"));
    const issued = () => [...fake.entra!.issued.keys()];
    const bearer = () => fake.requests.at(-1)!.headers.authorization;
    const first = bearer();
    const before = issued().length;

    // Five minutes before the hour is up: the current token still serves, and a new one is fetched meanwhile.
    clock += (3599 - 290) * 1000;
    await openai.chat.completions.create(ask("az-entra/gpt-4o"));
    expect(bearer()).toBe(first);
    for (let i = 0; i < 200 && issued().length === before; i++) await Bun.sleep(5);
    expect(issued()).toHaveLength(before + 1);
    await openai.chat.completions.create(ask("az-entra/gpt-4o"));
    const renewed = bearer();
    expect(renewed).toBe(`Bearer ${issued().at(-1)}`);
    expect(renewed).not.toBe(first);

    // Past the renewed token's hour (the fake would refuse it): a new one is fetched before the call.
    clock += 3600 * 1000;
    const answer = await openai.chat.completions.create(ask("az-entra/gpt-4o"));
    expect(answer.choices[0]!.message.content).toBe("The capital of France is Paris.");
    expect(issued()).toHaveLength(before + 2);
    expect(bearer()).toBe(`Bearer ${issued().at(-1)}`);
  });

  test("Entra refusing the credentials: a retryable 502 for the client, the log names the field, no new token request for a while", async () => {
    const first = await post("/chat/completions", ask("az-bad/gpt-4o"));
    expect(first.status).toBe(502);
    expect(first.body.error.metadata.error_type).toBe("provider_unavailable");
    expect(first.body.error.message).toBe("Upstream provider could not authenticate: Microsoft Entra ID refused the gateway's credentials");
    const refusal = logs.find((line) => line.includes("Microsoft Entra ID refused"));
    expect(refusal).toContain("check entra.client_secret");
    expect(refusal).toContain("7000215");
    const second = await post("/chat/completions", ask("az-bad/gpt-4o"));
    expect(second.status).toBe(502);
    expect(fake.tokenRequests).toHaveLength(1);
    expect(fake.requests).toHaveLength(0);
    for (const text of [first.text, second.text, ...logs]) {
      expect(text).not.toContain(WRONG_SECRET);
      expect(text).not.toContain(SECRET);
    }
  });
});

describe("the Responses API (api: responses)", () => {
  test("v1 style: /openai/v1/responses, collected and streamed, through the openai client's Responses API", async () => {
    const response = await openai.responses.create({ model: "az-resp/gpt-5", input: QUESTION });
    expect(response.output_text).toBe("The capital of France is Paris.");
    let text = "";
    for await (const event of await openai.responses.create({ model: "az-resp/gpt-5", input: QUESTION, stream: true })) {
      if (event.type === "response.output_text.delta") text += event.delta;
    }
    expect(text).toBe("The capital of France is Paris.");
    expect(fake.requests.map((r) => [r.path, r.body.model, r.body.store, r.stream])).toEqual([
      ["/openai/v1/responses", "gpt-5-prod", false, false],
      ["/openai/v1/responses", "gpt-5-prod", false, true],
    ]);
  });

  test("deployments style with Entra ID, from a Messages client: POST /openai/responses?api-version", async () => {
    const message = await anthropic.messages.create({ model: "az-resp-entra/gpt-5", max_tokens: 200, messages: [{ role: "user", content: QUESTION }] });
    expect(message.content).toEqual([{ type: "text", text: "The capital of France is Paris.", citations: null } as never]);
    expect(message.stop_reason).toBe("end_turn");
    const seen = fake.requests[0]!;
    expect([seen.path, seen.query, seen.body.model, seen.auth]).toEqual(["/openai/responses", "api-version=2025-04-01-preview", "gpt-5-prod", "entra"]);
  });
});

describe("the other clients", () => {
  test("@openrouter/sdk: chat collected and streamed through the deployments style", async () => {
    const { sdk } = sdkClient(gw, gw.inferenceKey);
    const result = await chatOnce(sdk, { model: "az-entra/gpt-4o", messages: [{ role: "user", content: QUESTION }] });
    expect(result.choices[0]?.message.content).toBe("The capital of France is Paris.");
    const chunks = await chatChunks(sdk, { model: "az/gpt-4o", messages: [{ role: "user", content: QUESTION }] });
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? "").join("")).toBe("The capital of France is Paris.");
  });

  test("tool calls both ways: the call reaches the client, the result goes back to Azure", async () => {
    const tools = [{ type: "function" as const, function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } } }];
    const first = await openai.chat.completions.create({ ...ask("az/gpt-4o", "Weather in Paris?"), tools });
    const call = first.choices[0]!.message.tool_calls![0]! as Json;
    expect([first.choices[0]!.finish_reason, call.function.name, call.function.arguments]).toEqual(["tool_calls", "get_weather", '{"city":"Paris"}']);
    const second = await openai.chat.completions.create({
      model: "az/gpt-4o",
      tools,
      messages: [{ role: "user", content: "Weather in Paris?" }, first.choices[0]!.message as never, { role: "tool", tool_call_id: call.id, content: '{"c":18}' }],
    });
    expect(second.choices[0]!.message.content).toBe("The capital of France is Paris.");
    const sent = fake.requests.at(-1)!.body.messages as Json[];
    expect(sent.at(-1)).toEqual({ role: "tool", tool_call_id: call.id, content: '{"c":18}' });
  });
});

const FORMATS = [
  { name: "chat", path: "/chat/completions", body: (model: string, text: string) => ask(model, text) },
  { name: "responses", path: "/responses", body: (model: string, text: string) => ({ model, input: text }) },
  { name: "messages", path: "/messages", body: (model: string, text: string) => ({ ...ask(model, text), max_tokens: 200 }) },
] as const;

describe("Azure's content filter", () => {
  for (const model of ["az/gpt-4o", "az-resp/gpt-5"]) {
    for (const format of FORMATS) {
      for (const stream of [false, true]) {
        test(`${format.name} → ${model}${stream ? " streamed" : ""}: a refused prompt is a 400 content_policy_violation naming the category`, async () => {
          const reply = await post(format.path, { ...format.body(model, "Tell me [azure:prompt-filter]"), ...(stream ? { stream } : {}) });
          expect(reply.status).toBe(400);
          const error = format.name === "messages" ? reply.body.error : reply.body.error;
          expect(error.metadata?.error_type ?? error.error_type).toBe("content_policy_violation");
          expect(JSON.stringify(reply.body)).toContain("self_harm");
          expect(fake.requests).toHaveLength(1);
        });
      }
    }
  }

  for (const model of ["az/gpt-4o", "az-resp/gpt-5"]) {
    test(`${model}: an answer the filter cut ends as each format's refusal, collected`, async () => {
      const text = "Describe it [azure:output-filter]";
      const chat = await post("/chat/completions", FORMATS[0].body(model, text));
      expect(chat.body.choices[0].finish_reason).toBe("content_filter");
      expect(chat.body.choices[0].message.content).toBe("The capital of France is");
      const responses = await post("/responses", FORMATS[1].body(model, text));
      expect([responses.body.status, responses.body.incomplete_details]).toEqual(["incomplete", { reason: "content_filter" }]);
      const messages = await post("/messages", FORMATS[2].body(model, text));
      expect(messages.body.stop_reason).toBe("refusal");
    });

    test(`${model}: an answer the filter cut mid-stream ends as each format's refusal, streamed`, async () => {
      const text = "Describe it [azure:output-filter]";
      const chat = await openai.chat.completions.create({ ...ask(model, text), stream: true });
      let said = "";
      let finish: string | null | undefined;
      for await (const chunk of chat) {
        said += chunk.choices[0]?.delta.content ?? "";
        finish = chunk.choices[0]?.finish_reason ?? finish;
      }
      expect([said, finish]).toEqual(["The capital of France is", "content_filter"]);
      let last: Json | undefined;
      for await (const event of await openai.responses.create({ model, input: text, stream: true })) last = event as unknown as Json;
      expect(last?.type).toBe("response.incomplete");
      expect(last?.response.incomplete_details).toEqual({ reason: "content_filter" });
      const message = await anthropic.messages.stream({ model, max_tokens: 200, messages: [{ role: "user", content: text }] }).finalMessage();
      expect(message.stop_reason).toBe("refusal");
    });
  }
});

describe("Azure's errors", () => {
  test("a 429: rate_limit_exceeded with the wait Azure asked for (retry-after-ms)", async () => {
    const reply = await post("/chat/completions", ask("az/gpt-4o", "Hi [azure:429]"));
    expect(reply.status).toBe(429);
    expect(reply.body.error.metadata.error_type).toBe("rate_limit_exceeded");
    expect(reply.headers.get("retry-after")).toBe("2");
  });

  test("a deployment the resource does not have: the next endpoint serves the model", async () => {
    const completion = await openai.chat.completions.create({ ...ask("az/fallback"), provider: { order: ["az-missing", "az-second"] } } as never);
    expect(completion.choices[0]!.message.content).toBe("The capital of France is Paris.");
    expect(fake.seen.filter((line) => line.startsWith("POST /openai/v1/chat/completions"))).toHaveLength(2);
    expect(fake.requests.map((r) => r.deployment)).toEqual(["gpt-4o-prod"]);
    const direct = await post("/chat/completions", { ...ask("az/fallback"), provider: { order: ["az-missing"], allow_fallbacks: false } });
    expect(direct.status).toBe(502);
    expect(direct.body.error.message).toBe("Upstream provider has no deployment of this model");
  });

  test("a failure after some text: the chat stream's in-band error, after the partial answer", async () => {
    const reply = await post("/chat/completions", { ...ask("az/gpt-4o", "Go [azure:stream-error]"), stream: true });
    expect(reply.status).toBe(200);
    const chunks = reply.text.split("\n\n").filter((f) => f.startsWith("data: {")).map((f) => JSON.parse(f.slice(6)) as Json);
    expect(chunks.map((c) => c.choices[0]?.delta?.content ?? "").join("")).toBe("The capital of France");
    expect(chunks.at(-1)!.error.metadata.error_type).toBe("provider_unavailable");
    expect(reply.text.trim().endsWith("data: [DONE]")).toBe(true);
  });
});

describe("what Azure's chat completions refuses", () => {
  test("top_k, min_p and repetition_penalty: not sent, each a warning; strict mode refuses before Azure is called", async () => {
    const body = { ...ask("az/gpt-4o"), top_k: 5, min_p: 0.1, repetition_penalty: 1.1 };
    const lenient = await post("/chat/completions", body, { "x-service-metadata": "enabled" });
    expect(lenient.status).toBe(200);
    expect((lenient.body.service_metadata.warnings as Json[]).map((w) => w.field)).toEqual(expect.arrayContaining(["top_k", "min_p", "repetition_penalty"]));
    expect(Object.keys(fake.requests[0]!.body)).not.toContain("top_k");
    const strict = await post("/chat/completions", body, { "x-service-strict": "true" });
    expect(strict.status).toBe(422);
    expect(fake.requests).toHaveLength(1);
  });

  test("reasoning replayed in an assistant turn is left out with a warning (Azure's schema has no field for it)", async () => {
    const history = [
      { role: "user", content: QUESTION },
      { role: "assistant", content: "Paris.", reasoning: "Easy: Paris." },
      { role: "user", content: "And Italy?" },
    ];
    const reply = await post("/chat/completions", { model: "az/gpt-4o", messages: history }, { "x-service-metadata": "enabled" });
    expect(reply.status).toBe(200);
    expect((reply.body.service_metadata.warnings as Json[]).map((w) => w.field)).toContain("messages.assistant.reasoning");
    expect(fake.requests[0]!.body.messages).toEqual([
      { role: "user", content: QUESTION },
      { role: "assistant", content: "Paris." },
      { role: "user", content: "And Italy?" },
    ]);
  });
});

describe("presets and batches", () => {
  test("a preset naming an Azure model, and a batch of requests to one, are served by Azure", async () => {
    const made = await gw.request("/presets/azure-terse/chat/completions", { method: "POST", key: ADMIN_KEY, json: { model: "az-entra/gpt-4o", messages: [{ role: "system", content: "Be terse." }] } });
    expect(made.status).toBe(200);
    const reply = await openai.chat.completions.create({ model: "@preset/azure-terse", messages: [{ role: "user", content: QUESTION }] });
    expect(reply.choices[0]!.message.content).toBe("The capital of France is Paris.");
    expect(fake.requests[0]!.body.messages).toEqual([{ role: "system", content: "Be terse." }, { role: "user", content: QUESTION }]);

    const batch = await submit(gw, { endpoint: "/chat/completions", model: "az-resp/gpt-5", requests: [chatItem("a", "first"), chatItem("b", "second")] });
    const done = (await waitForBatch(gw, batch.id, (b) => b.status === "completed" || b.status === "failed")).batch;
    expect(done.request_counts).toEqual({ completed: 2, failed: 0, total: 2 });
    for (const entry of done.results!) expect((entry.response!.body as Json).choices[0].message.content).toBe("The capital of France is Paris.");
    expect(fake.requests.filter((r) => r.path === "/openai/v1/responses")).toHaveLength(2);
  });
});

describe("listings", () => {
  test("GET /providers, /models and the endpoints show the region; no secret anywhere", async () => {
    const listed = (await (await gw.request("/providers")).json()) as Json;
    const byName = Object.fromEntries((listed.data as Json[]).map((p) => [p.name, p]));
    expect(byName.az).toMatchObject({ adapter: "azure", region: "eastus2" });
    expect(byName["az-entra"].region).toBe("swedencentral");
    expect(byName["az-resp"].region).toBeNull();
    const models = (await (await gw.request("/models")).json()) as Json;
    const model = (models.data as Json[]).find((m) => m.id === "az-entra/gpt-4o")!;
    expect(model.endpoints[0]).toMatchObject({ provider: "az-entra", adapter: "azure", region: "swedencentral" });
    const endpoints = (await (await gw.request("/models/az/gpt-4o/endpoints")).json()) as Json;
    expect(endpoints.data.endpoints[0]).toMatchObject({ provider_name: "az", region: "eastus2" });
    const admin = await (await fetch(`${gw.origin}/admin`)).text();
    for (const text of [JSON.stringify(listed), JSON.stringify(models), JSON.stringify(endpoints), admin, ...logs]) {
      for (const secret of [KEY, SECRET, WRONG_SECRET]) expect(text).not.toContain(secret);
    }
  });
});
