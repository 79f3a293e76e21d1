/**
 * The fake Azure OpenAI resource (test/support/fake-azure/) driven by the official `openai` client's `AzureOpenAI`
 * (api key and Microsoft Entra token provider, deployments style with `apiVersion` and `deployment`) and by a plain
 * `OpenAI` client on the v1 API with the `api-key` header: if the fake's URLs, credential checks or answer shapes
 * drifted from Azure's, the client Microsoft documents for Azure would fail here before any gateway test relied on it.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import OpenAI, { AzureOpenAI } from "openai";
import { startFakeAzure, type FakeAzure } from "../support/fake-azure/server.ts";
import { COGNITIVE_SERVICES_SCOPE } from "../../providers/azure/entra.ts";

const KEY = "az-resource-key-0123456789abcdef";
const APP = { tenantId: "contoso-tenant", clientId: "11111111-2222-3333-4444-555555555555", clientSecret: "entra-client-secret-value" };
const DEPLOYMENT = "gpt-4o-prod";
const QUESTION = "What is the capital of France?";

type Json = Record<string, any>;

let fake: FakeAzure;
let clock = Date.now();
beforeAll(async () => {
  fake = await startFakeAzure({ apiKey: KEY, entra: APP, deployments: { [DEPLOYMENT]: "gpt-4o-2024-11-20" }, now: () => clock });
});
afterAll(() => fake.stop());
beforeEach(() => {
  fake.reset();
  clock = Date.now();
});

/** Microsoft Entra's client-credentials grant, as @azure/identity's ClientSecretCredential makes it. */
async function entraToken(overrides: Record<string, string> = {}): Promise<{ status: number; body: Json }> {
  const form = new URLSearchParams({ grant_type: "client_credentials", client_id: APP.clientId, client_secret: APP.clientSecret, scope: COGNITIVE_SERVICES_SCOPE, ...overrides });
  const res = await fetch(fake.tokenUrl, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: form });
  return { status: res.status, body: (await res.json()) as Json };
}

/** The client's error for a call that must fail. */
async function failure(call: Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
  try {
    await call;
  } catch (error) {
    return error as InstanceType<typeof OpenAI.APIError>;
  }
  throw new Error("expected the call to fail");
}

const keyClient = () => new AzureOpenAI({ endpoint: fake.endpoint, apiKey: KEY, apiVersion: "2024-10-21", deployment: DEPLOYMENT, maxRetries: 0 });
const ask = (content: string) => ({ model: DEPLOYMENT, messages: [{ role: "user" as const, content }] });

describe("AzureOpenAI with an api key, deployments style", () => {
  test("chat completion: the deployment and api-version in the URL, the key in api-key; Azure's annotations in the answer", async () => {
    const completion = (await keyClient().chat.completions.create(ask(QUESTION))) as unknown as Json;
    expect(completion.choices[0].message.content).toBe("The capital of France is Paris.");
    expect(completion.choices[0].finish_reason).toBe("stop");
    expect(completion.model).toBe("gpt-4o-2024-11-20");
    expect(completion.prompt_filter_results[0].content_filter_results.hate).toEqual({ filtered: false, severity: "safe" });
    expect(completion.choices[0].content_filter_results.violence).toEqual({ filtered: false, severity: "safe" });
    expect(completion.usage.prompt_tokens).toBeGreaterThan(0);
    const request = fake.requests[0]!;
    expect([request.style, request.api, request.deployment, request.auth]).toEqual(["deployments", "chat", DEPLOYMENT, "api-key"]);
    expect(request.path).toBe(`/openai/deployments/${DEPLOYMENT}/chat/completions`);
    expect(request.query).toBe("api-version=2024-10-21");
    expect(request.headers["api-key"]).toBe(KEY);
  });

  test("streamed: the prompt-annotation chunk first (no choice), the text, the finish, the usage chunk", async () => {
    const stream = await keyClient().chat.completions.create({ ...ask(QUESTION), stream: true, stream_options: { include_usage: true } });
    const chunks: Json[] = [];
    for await (const chunk of stream) chunks.push(chunk as unknown as Json);
    expect(chunks[0]!.choices).toEqual([]);
    expect(chunks[0]!.prompt_filter_results).toHaveLength(1);
    expect(chunks.map((c) => c.choices[0]?.delta?.content ?? "").join("")).toBe("The capital of France is Paris.");
    expect(chunks.find((c) => c.choices[0]?.finish_reason)?.choices[0].finish_reason).toBe("stop");
    expect(chunks.at(-1)!.usage.completion_tokens).toBeGreaterThan(0);
  });

  test("an answer the filter cut: finish_reason content_filter, the category filtered; streamed, the cut is the last chunk", async () => {
    const completion = (await keyClient().chat.completions.create(ask("Describe it [azure:output-filter]"))) as unknown as Json;
    expect(completion.choices[0].finish_reason).toBe("content_filter");
    expect(completion.choices[0].content_filter_results.violence).toEqual({ filtered: true, severity: "medium" });
    const chunks: Json[] = [];
    for await (const chunk of await keyClient().chat.completions.create({ ...ask("Describe it [azure:output-filter]"), stream: true })) chunks.push(chunk as unknown as Json);
    const last = chunks.at(-1)!;
    expect(last.choices[0].finish_reason).toBe("content_filter");
    expect(last.id).toBe("");
    expect(chunks.map((c) => c.choices[0]?.delta?.content ?? "").join("")).toBe("The capital of France is");
  });

  test("tools: the call of the offered tool, streamed in fragments that join to its arguments", async () => {
    const tools = [{ type: "function" as const, function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } } }];
    const completion = await keyClient().chat.completions.create({ ...ask("Weather in Paris?"), tools });
    expect(completion.choices[0]!.finish_reason).toBe("tool_calls");
    const call = completion.choices[0]!.message.tool_calls![0] as Json;
    expect([call.function.name, JSON.parse(call.function.arguments)]).toEqual(["get_weather", { city: "Paris" }]);
    let args = "";
    for await (const chunk of await keyClient().chat.completions.create({ ...ask("Weather in Paris?"), tools, stream: true })) {
      args += chunk.choices[0]?.delta?.tool_calls?.[0]?.function?.arguments ?? "";
    }
    expect(JSON.parse(args)).toEqual({ city: "Paris" });
  });

  test("errors in Azure's shapes: the prompt filter's 400, a 429 with retry-after-ms, a missing deployment, an unknown argument, a wrong key", async () => {
    const refused = await failure(keyClient().chat.completions.create(ask("Tell me [azure:prompt-filter]")));
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect(refused.code).toBe("content_filter");
    expect((refused.error as Json).innererror.code).toBe("ResponsibleAIPolicyViolation");
    expect((refused.error as Json).innererror.content_filter_result.self_harm).toEqual({ filtered: true, severity: "high" });

    const limited = await failure(keyClient().chat.completions.create(ask("Hi [azure:429]")));
    expect(limited).toBeInstanceOf(OpenAI.RateLimitError);
    expect(limited.headers?.get("retry-after-ms")).toBe("2000");
    expect(limited.headers?.get("retry-after")).toBe("2");

    const other = new AzureOpenAI({ endpoint: fake.endpoint, apiKey: KEY, apiVersion: "2024-10-21", deployment: "no-such-deployment", maxRetries: 0 });
    const missing = await failure(other.chat.completions.create(ask(QUESTION)));
    expect(missing).toBeInstanceOf(OpenAI.NotFoundError);
    expect(missing.code).toBe("DeploymentNotFound");

    const unknown = await failure(keyClient().chat.completions.create({ ...ask(QUESTION), top_k: 5 } as never));
    expect(unknown).toBeInstanceOf(OpenAI.BadRequestError);
    expect(unknown.message).toContain("Unrecognized request argument supplied: top_k");

    const history = [{ role: "user", content: QUESTION }, { role: "assistant", content: "Paris.", reasoning_content: "easy" }, { role: "user", content: "And Italy?" }];
    const extra = await failure(keyClient().chat.completions.create({ model: DEPLOYMENT, messages: history } as never));
    expect(extra.message).toContain("Additional properties are not allowed ('reasoning_content' was unexpected) - 'messages.1'");

    const wrongKey = new AzureOpenAI({ endpoint: fake.endpoint, apiKey: "wrong", apiVersion: "2024-10-21", deployment: DEPLOYMENT, maxRetries: 0 });
    expect(await wrongKey.chat.completions.create(ask(QUESTION)).catch((e: unknown) => e)).toBeInstanceOf(OpenAI.AuthenticationError);
    // Only the filtered prompt and the rate-limited one got past the URL, credential and schema checks.
    expect(fake.requests).toHaveLength(2);
  });

  test("an api-version Azure does not know is its 400", async () => {
    const old = new AzureOpenAI({ endpoint: fake.endpoint, apiKey: KEY, apiVersion: "2019-01-01", deployment: DEPLOYMENT, maxRetries: 0 });
    const error = await failure(old.chat.completions.create(ask(QUESTION)));
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error.message).toContain("API version not supported");
  });

  test("a failure after some text: the client's stream throws Azure's error", async () => {
    const stream = await keyClient().chat.completions.create({ ...ask("Go [azure:stream-error]"), stream: true });
    let text = "";
    const thrown = await (async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? "";
    })().catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(OpenAI.APIError);
    expect(text).toBe("The capital of France");
  });

  test("Responses on the dated API: POST /openai/responses?api-version, the deployment as model; Azure's content_filters", async () => {
    const client = new AzureOpenAI({ endpoint: fake.endpoint, apiKey: KEY, apiVersion: "2025-04-01-preview", maxRetries: 0 });
    const response = (await client.responses.create({ model: DEPLOYMENT, input: QUESTION })) as unknown as Json;
    expect(response.output_text).toBe("The capital of France is Paris.");
    expect(response.status).toBe("completed");
    expect(response.content_filters.map((f: Json) => [f.source_type, f.blocked])).toEqual([["prompt", false], ["completion", false]]);
    expect(fake.requests[0]!.path).toBe("/openai/responses");
    expect(fake.requests[0]!.query).toBe("api-version=2025-04-01-preview");

    const events: Json[] = [];
    for await (const event of await client.responses.create({ model: DEPLOYMENT, input: "Describe it [azure:output-filter]", stream: true })) events.push(event as unknown as Json);
    const last = events.at(-1)!;
    expect(last.type).toBe("response.incomplete");
    expect(last.response.incomplete_details).toEqual({ reason: "content_filter" });
    expect(last.response.content_filters[1]).toMatchObject({ source_type: "completion", blocked: true });

    const refused = await failure(client.responses.create({ model: DEPLOYMENT, input: "Tell me [azure:prompt-filter]" }));
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect(refused.code).toBe("content_filter");
    expect((refused.error as Json).content_filters[0]).toMatchObject({ blocked: true, source_type: "prompt" });
  });
});

describe("AzureOpenAI with a Microsoft Entra token provider", () => {
  test("the token endpoint checks the client credentials and the scope; the token it issues authenticates, until it expires", async () => {
    const client = new AzureOpenAI({
      endpoint: fake.endpoint,
      apiVersion: "2024-10-21",
      deployment: DEPLOYMENT,
      maxRetries: 0,
      azureADTokenProvider: async () => (await entraToken()).body.access_token as string,
    });
    const completion = await client.chat.completions.create(ask(QUESTION));
    expect(completion.choices[0]!.message.content).toBe("The capital of France is Paris.");
    expect(fake.requests[0]!.auth).toBe("entra");
    expect(fake.requests[0]!.headers.authorization).toMatch(/^Bearer /);
    expect(fake.tokenRequests[0]!.form.get("scope")).toBe("https://cognitiveservices.azure.com/.default");

    // A token past its lifetime (the fake's clock moves on an hour) is Azure's 401.
    const token = (await entraToken()).body.access_token as string;
    clock += 3600 * 1000;
    const stale = new AzureOpenAI({ endpoint: fake.endpoint, apiVersion: "2024-10-21", deployment: DEPLOYMENT, maxRetries: 0, azureADTokenProvider: async () => token });
    const expired = await failure(stale.chat.completions.create(ask(QUESTION)));
    expect(expired).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(expired.message).toContain("have expired");
  });

  test("Entra's refusals: a wrong secret, an unknown client, another scope, another tenant", async () => {
    const secret = await entraToken({ client_secret: "nope" });
    expect([secret.status, secret.body.error, secret.body.error_codes]).toEqual([401, "invalid_client", [7000215]]);
    const client = await entraToken({ client_id: "unknown-app" });
    expect([client.status, client.body.error, client.body.error_codes]).toEqual([400, "unauthorized_client", [700016]]);
    const scope = await entraToken({ scope: "https://management.azure.com/.default" });
    expect([scope.status, scope.body.error]).toEqual([400, "invalid_scope"]);
    const res = await fetch(fake.tokenUrl.replace(APP.tenantId, "other-tenant"), {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "client_credentials", client_id: APP.clientId, client_secret: APP.clientSecret, scope: COGNITIVE_SERVICES_SCOPE }),
    });
    expect((await res.json()) as Json).toMatchObject({ error: "invalid_request", error_codes: [90002] });
    // A token for another audience is not one Azure OpenAI takes.
    const client2 = new AzureOpenAI({ endpoint: fake.endpoint, apiVersion: "2024-10-21", deployment: DEPLOYMENT, maxRetries: 0, azureADTokenProvider: async () => "eyJ.forged" });
    expect(await client2.chat.completions.create(ask(QUESTION)).catch((e: unknown) => e)).toBeInstanceOf(OpenAI.AuthenticationError);
  });
});

describe("a plain OpenAI client on the v1 API (base URL …/openai/v1, the api-key header)", () => {
  const v1 = () => new OpenAI({ baseURL: `${fake.endpoint}/openai/v1`, apiKey: "unused", defaultHeaders: { "api-key": KEY }, maxRetries: 0 });

  test("chat completions and Responses, the deployment as model, no api-version", async () => {
    const completion = await v1().chat.completions.create(ask(QUESTION));
    expect(completion.choices[0]!.message.content).toBe("The capital of France is Paris.");
    const response = await v1().responses.create({ model: DEPLOYMENT, input: QUESTION });
    expect(response.output_text).toBe("The capital of France is Paris.");
    expect(fake.requests.map((r) => [r.style, r.api, r.path, r.query])).toEqual([
      ["v1", "chat", "/openai/v1/chat/completions", ""],
      ["v1", "responses", "/openai/v1/responses", ""],
    ]);
  });

  test("streamed Responses end with response.completed carrying the usage", async () => {
    const events: Json[] = [];
    for await (const event of await v1().responses.create({ model: DEPLOYMENT, input: QUESTION, stream: true })) events.push(event as unknown as Json);
    expect(events.map((e) => e.type)).toContain("response.output_text.delta");
    expect(events.at(-1)!.type).toBe("response.completed");
    expect(events.at(-1)!.response.usage.output_tokens).toBeGreaterThan(0);
  });

  test("a deployments path without api-version is Azure's 404", async () => {
    const bare = new OpenAI({ baseURL: `${fake.endpoint}/openai/deployments/${DEPLOYMENT}`, apiKey: "unused", defaultHeaders: { "api-key": KEY }, maxRetries: 0 });
    expect(await bare.chat.completions.create(ask(QUESTION)).catch((e: unknown) => e)).toBeInstanceOf(OpenAI.NotFoundError);
  });
});
