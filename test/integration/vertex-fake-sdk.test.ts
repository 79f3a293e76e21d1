/**
 * The fake Google Vertex AI endpoint (test/support/fake-vertex/) driven by the official clients Google and Anthropic
 * document for it: `@google/genai` with `vertexai: true` (Gemini), `@anthropic-ai/vertex-sdk` (Claude), and
 * google-auth-library's own JWT client for the token endpoint (the JWT bearer grant a service-account key makes). If
 * the fake's URLs, credential checks or answer shapes drifted from Vertex's, these clients would fail here before any
 * gateway test relied on the fake.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { AnthropicVertex } from "@anthropic-ai/vertex-sdk";
import { GoogleGenAI } from "@google/genai";
import { JWT, OAuth2Client } from "google-auth-library";
import { makeServiceAccount } from "../support/fake-vertex/google-oauth.ts";
import { startFakeVertex, type FakeVertex } from "../support/fake-vertex/server.ts";

const PROJECT = "acme-genai-prod";
const LOCATION = "us-east5";
const GEMINI = "gemini-2.5-flash";
const CLAUDE = "claude-sonnet-4-5@20250929";
const STATIC_TOKEN = "ya29.static-token-for-the-sdk-checks";
const GOOGLE_TOKEN_URL = "https://oauth2.googleapis.com/token";

type Json = Record<string, any>;

let fake: FakeVertex;
beforeAll(async () => {
  // The token endpoint expects Google's own URL as the audience: google-auth-library always signs for it.
  fake = await startFakeVertex({ project: PROJECT, location: LOCATION, models: { google: [GEMINI], anthropic: [CLAUDE] }, staticTokens: [STATIC_TOKEN], tokenAudience: GOOGLE_TOKEN_URL });
});
afterAll(() => fake.stop());
beforeEach(() => fake.reset());

/** An auth client holding a fixed token (what `gcloud auth print-access-token` gives). */
function staticAuth(token = STATIC_TOKEN): OAuth2Client {
  const client = new OAuth2Client();
  client.setCredentials({ access_token: token, expiry_date: Date.now() + 3_600_000 });
  return client;
}

const genai = (token?: string) =>
  new GoogleGenAI({ vertexai: true, project: PROJECT, location: LOCATION, apiVersion: "v1", httpOptions: { baseUrl: fake.endpoint }, googleAuthOptions: { authClient: staticAuth(token) } });
const claude = (token?: string) => new AnthropicVertex({ region: LOCATION, projectId: PROJECT, baseURL: `${fake.endpoint}/v1`, authClient: staticAuth(token), maxRetries: 0 });

async function failure(call: Promise<unknown>): Promise<any> {
  try {
    await call;
  } catch (error) {
    return error;
  }
  throw new Error("expected the call to fail");
}

describe("@google/genai in Vertex mode (Gemini)", () => {
  test("generateContent: the project, location and publisher in the URL, the bearer token; Vertex's answer fields", async () => {
    const result = await genai().models.generateContent({ model: GEMINI, contents: "What is the capital of France?" });
    expect(result.text).toBe("The capital of France is Paris.");
    expect(result.candidates?.[0]?.finishReason).toBe("STOP" as never);
    expect(result.usageMetadata?.promptTokenCount).toBeGreaterThan(0);
    expect(result.modelVersion).toBe(GEMINI);
    const request = fake.requests[0]!;
    expect(request.path).toBe(`/v1/projects/${PROJECT}/locations/${LOCATION}/publishers/google/models/${GEMINI}:generateContent`);
    expect(request.headers.authorization).toBe(`Bearer ${STATIC_TOKEN}`);
  });

  test("streamGenerateContent?alt=sse: the text in pieces, the finish and the usage on the last chunk", async () => {
    const chunks: Json[] = [];
    for await (const chunk of await genai().models.generateContentStream({ model: GEMINI, contents: "What is the capital of France?" })) chunks.push(chunk as Json);
    expect(chunks.map((c) => c.text ?? "").join("")).toBe("The capital of France is Paris.");
    expect(chunks.at(-1)!.candidates[0].finishReason).toBe("STOP");
    expect(chunks.at(-1)!.usageMetadata.candidatesTokenCount).toBeGreaterThan(0);
    expect(fake.requests[0]!.query).toBe("alt=sse");
  });

  test("a function call, thoughts and the thought signature", async () => {
    const result = await genai().models.generateContent({
      model: GEMINI,
      contents: "Weather in Paris? [vertex:reason]",
      config: { tools: [{ functionDeclarations: [{ name: "get_weather", parametersJsonSchema: { type: "object", properties: { city: { type: "string" } } } }] }], thinkingConfig: { includeThoughts: true } },
    });
    expect(result.functionCalls?.[0]).toMatchObject({ name: "get_weather", args: { city: "Paris" } });
    const parts = result.candidates![0]!.content!.parts!;
    expect(parts[0]).toMatchObject({ thought: true });
    expect(parts[1]!.thoughtSignature!.length).toBeGreaterThan(10);
  });

  test("Vertex's refusals reach the client as Google's errors: 401, 404, 429", async () => {
    expect((await failure(genai("ya29.wrong").models.generateContent({ model: GEMINI, contents: "Hi" }))).status).toBe(401);
    expect((await failure(genai().models.generateContent({ model: "gemini-0.1-nope", contents: "Hi" }))).status).toBe(404);
    const limited = await failure(genai().models.generateContent({ model: GEMINI, contents: "Hi [vertex:429]" }));
    expect(limited.status).toBe(429);
    expect(String(limited.message)).toContain("RESOURCE_EXHAUSTED");
  });
});

describe("@anthropic-ai/vertex-sdk (Claude)", () => {
  test("rawPredict: no model in the body, anthropic_version instead, the model in the URL", async () => {
    const message = await claude().messages.create({ model: CLAUDE, max_tokens: 100, messages: [{ role: "user", content: "What is the capital of France?" }] });
    expect(message.content[0]).toMatchObject({ type: "text", text: "The capital of France is Paris." });
    expect(message.stop_reason).toBe("end_turn");
    expect(message.id).toStartWith("msg_vrtx_");
    const request = fake.requests[0]!;
    expect(request.path).toBe(`/v1/projects/${PROJECT}/locations/${LOCATION}/publishers/anthropic/models/${CLAUDE}:rawPredict`);
    expect(request.body.model).toBeUndefined();
    expect(typeof request.body.anthropic_version).toBe("string");
    expect(request.headers["anthropic-version"]).toBeUndefined();
  });

  test("streamRawPredict: Anthropic's events, thinking with its signature, a tool call", async () => {
    const stream = claude().messages.stream({
      model: CLAUDE,
      max_tokens: 2000,
      thinking: { type: "enabled", budget_tokens: 1024 },
      tools: [{ name: "get_weather", input_schema: { type: "object", properties: { city: { type: "string" } } } }],
      messages: [{ role: "user", content: "Weather in Paris? [vertex:reason]" }],
    });
    const message = await stream.finalMessage();
    expect(message.stop_reason).toBe("tool_use");
    expect(message.content[0]).toMatchObject({ type: "thinking" });
    expect((message.content[0] as { signature: string }).signature.length).toBeGreaterThan(10);
    expect(message.content[1]).toMatchObject({ type: "tool_use", name: "get_weather", input: { city: "Paris" } });
    expect(fake.requests[0]!.method).toBe("streamRawPredict");
    expect(fake.requests[0]!.body.stream).toBe(true);
  });

  test("an in-band error after some text ends the stream with the client's error", async () => {
    const stream = claude().messages.stream({ model: CLAUDE, max_tokens: 100, messages: [{ role: "user", content: "Hi [vertex:stream-error]" }] });
    const error = await failure(stream.finalMessage());
    expect(String(error.message)).toContain("Overloaded");
  });

  test("401 for a token Google did not issue, 404 for a model the project cannot reach, 429 for quota", async () => {
    const ask = (client: AnthropicVertex, model = CLAUDE, text = "Hi") => client.messages.create({ model, max_tokens: 10, messages: [{ role: "user", content: text }] });
    expect((await failure(ask(claude("ya29.wrong")))).status).toBe(401);
    expect((await failure(ask(claude(), "claude-nope@1"))).status).toBe(404);
    expect((await failure(ask(claude(), CLAUDE, "Hi [vertex:429]"))).status).toBe(429);
  });
});

describe("google-auth-library's JWT client against the fake token endpoint", () => {
  test("the JWT bearer grant of a service-account key gets a token Vertex accepts; a wrong key does not", async () => {
    const account = makeServiceAccount(PROJECT, GOOGLE_TOKEN_URL);
    fake.oauth.accounts.push(account);
    // google-auth-library always posts to Google's URL: its fetch is pointed at the fake, nothing else changes.
    const toFake: typeof fetch = ((input: string | URL | Request, init?: RequestInit) => fetch(String(input instanceof Request ? input.url : input).replace(GOOGLE_TOKEN_URL, fake.tokenUrl), init)) as typeof fetch;
    const jwt = new JWT({ email: account.keyFile.client_email, key: account.keyFile.private_key, scopes: ["https://www.googleapis.com/auth/cloud-platform"], transporterOptions: { fetchImplementation: toFake } });
    const { token } = await jwt.getAccessToken();
    expect(token).toStartWith("ya29.");
    expect(fake.oauth.accepts(token!)).toBe(true);
    const form = fake.tokenRequests[0]!;
    expect(form.get("grant_type")).toBe("urn:ietf:params:oauth:grant-type:jwt-bearer");
    // The same token works with the Gemini client.
    const result = await genai(token!).models.generateContent({ model: GEMINI, contents: "Hi" });
    expect(result.text).toBe("The capital of France is Paris.");

    const stranger = makeServiceAccount(PROJECT, GOOGLE_TOKEN_URL, "stranger");
    const forged = new JWT({ email: account.keyFile.client_email, key: stranger.keyFile.private_key, scopes: ["https://www.googleapis.com/auth/cloud-platform"], transporterOptions: { fetchImplementation: toFake } });
    const refused = await failure(forged.getAccessToken());
    expect(JSON.stringify(refused.response?.data ?? refused.message)).toContain("invalid_grant");
  });
});
