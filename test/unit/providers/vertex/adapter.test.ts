/**
 * providers/vertex/ called directly (as the conformance kit calls an adapter) against the fake Vertex endpoint
 * (test/support/fake-vertex/, checked against Google's and Anthropic's clients in
 * test/integration/vertex-fake-sdk.test.ts): the URLs per publisher and location, Claude's body as Vertex takes it,
 * the bearer token from a fixed token or a service-account key (one renewal after a 401), Vertex's refusals mapped,
 * what Claude on Vertex does not take warned.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { GatewayError } from "../../../../core/errors.ts";
import { collect } from "../../../../core/model/collect.ts";
import anthropic from "../../../../providers/anthropic/index.ts";
import gemini from "../../../../providers/gemini/index.ts";
import { planOf, prepareVertexTarget } from "../../../../providers/vertex/plan.ts";
import { vertexAdapter } from "../../../../providers/vertex/index.ts";
import { makeServiceAccount } from "../../../support/fake-vertex/google-oauth.ts";
import { startFakeVertex, type FakeVertex } from "../../../support/fake-vertex/server.ts";
import { canonicalRequest, fakeHelpers, providerCall, target } from "../helpers.ts";

const PROJECT = "acme-genai-prod";
const LOCATION = "us-east5";
const GEMINI = "gemini-2.5-flash";
const CLAUDE = "claude-sonnet-4-5@20250929";
const TOKEN = "ya29.static-adapter-token";
const vertex = vertexAdapter({ gemini, anthropic });

let fake: FakeVertex;
beforeAll(async () => {
  fake = await startFakeVertex({ project: PROJECT, location: LOCATION, models: { google: [GEMINI], anthropic: [CLAUDE] }, staticTokens: [TOKEN] });
});
afterAll(() => fake.stop());
beforeEach(() => fake.reset());

const vertexTarget = (model: string, options: Record<string, unknown> = { access_token: TOKEN }) =>
  target({ providerId: "gcp", baseUrl: fake.endpoint, apiKey: undefined, upstreamModel: model, region: LOCATION, options: { project: PROJECT, ...options } });

const ask = (text: string) => canonicalRequest({ messages: [{ role: "user", parts: [{ type: "text", text }] }], maxTokens: 200 });

async function failure(promise: Promise<unknown>): Promise<GatewayError> {
  try {
    await promise;
  } catch (error) {
    return error as GatewayError;
  }
  throw new Error("expected a failure");
}

describe("URLs and bodies", () => {
  test("the default endpoint of a location, and the global one", () => {
    expect(prepareVertexTarget(target({ baseUrl: "", region: "europe-west4", options: { project: "p", access_token: "t" } })).baseUrl).toBe("https://europe-west4-aiplatform.googleapis.com");
    const global = prepareVertexTarget(target({ baseUrl: "", upstreamModel: GEMINI, options: { project: "p", location: "global", access_token: "t" } }));
    expect(global.baseUrl).toBe("https://aiplatform.googleapis.com");
    expect(planOf(global).inner.baseUrl).toBe("https://aiplatform.googleapis.com/v1/projects/p/locations/global/publishers/google");
    expect(planOf(target({ baseUrl: "", region: "us-east5", upstreamModel: CLAUDE, options: { project: "p", access_token: "t" } })).rawPredictUrl).toBe(
      "https://us-east5-aiplatform.googleapis.com/v1/projects/p/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:rawPredict",
    );
  });

  test("a missing location or project is refused naming the field; a config publisher overrides the model-name guess", () => {
    expect(() => prepareVertexTarget(target({ options: { project: "p", access_token: "t" } }))).toThrow(/^location: required/);
    expect(() => prepareVertexTarget(target({ region: "us-east5", options: { access_token: "t" } }))).toThrow(/^project: required/);
    expect(() => prepareVertexTarget(target({ region: "us-east5", options: { project: "p" } }))).toThrow(/^credentials:/);
    expect(planOf(target({ region: "us-east5", upstreamModel: "claude-like-but-google", options: { project: "p", access_token: "t", publishers: { "claude-like-but-google": "google" } } })).publisher).toBe("google");
  });

  test("Gemini: generateContent under publishers/google with the bearer token, no API key", async () => {
    const response = await vertex.generate(providerCall({ request: ask("What is the capital of France?"), target: vertexTarget(GEMINI) }));
    expect(response.parts.map((p) => (p.type === "text" ? p.text : "")).join("")).toBe("The capital of France is Paris.");
    const request = fake.requests[0]!;
    expect(request.path).toBe(`/v1/projects/${PROJECT}/locations/${LOCATION}/publishers/google/models/${GEMINI}:generateContent`);
    expect(request.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(request.headers["x-goog-api-key"]).toBeUndefined();
  });

  test("Claude: rawPredict / streamRawPredict, the body without model and with anthropic_version, no anthropic-version header", async () => {
    const echoed: unknown[] = [];
    await vertex.generate(providerCall({ request: ask("What is the capital of France?"), target: vertexTarget(CLAUDE), onUpstreamBody: (b) => echoed.push(b) }));
    const events = await vertex.stream(providerCall({ request: ask("What is the capital of France?"), target: vertexTarget(CLAUDE) }));
    const streamed = await collect(events);
    expect(streamed.finish.reason).toBe("stop");
    const [collected, stream] = fake.requests;
    expect(collected!.method).toBe("rawPredict");
    expect(stream!.method).toBe("streamRawPredict");
    for (const request of [collected!, stream!]) {
      expect(request.body.model).toBeUndefined();
      expect(request.body.anthropic_version).toBe("vertex-2023-10-16");
      expect(request.headers["anthropic-version"]).toBeUndefined();
      expect(request.headers["x-api-key"]).toBeUndefined();
    }
    expect(Object.keys(collected!.body)[0]).toBe("anthropic_version");
    expect(stream!.body.stream).toBe(true);
    // debug.echo_upstream_body shows what Vertex got.
    expect(echoed[0]).toMatchObject({ anthropic_version: "vertex-2023-10-16", max_tokens: 200 });
    expect((echoed[0] as Record<string, unknown>).model).toBeUndefined();
  });

  test("Claude: speed and mcp_servers are not sent, each with a warning", async () => {
    const request = { ...ask("Hi"), speed: "fast" as const, passthrough: { anthropic: { mcp_servers: [{ type: "url", url: "https://mcp.example", name: "x" }], container: "c1" } } };
    await vertex.generate(providerCall({ request, target: vertexTarget(CLAUDE) }));
    const sent = fake.requests[0]!.body;
    expect(sent.speed).toBeUndefined();
    expect(sent.mcp_servers).toBeUndefined();
    expect(sent.container).toBe("c1");
    expect(request.warnings.map((w) => w.field)).toEqual(expect.arrayContaining(["speed", "mcp_servers"]));
  });
});

describe("service-account tokens", () => {
  test("a token from the JWT bearer grant, reused; revoked, it is renewed once and the call goes through", async () => {
    const account = makeServiceAccount(PROJECT, fake.tokenUrl);
    fake.oauth.accounts.push(account);
    const options = { service_account: { client_email: account.keyFile.client_email, private_key: account.keyFile.private_key, private_key_id: account.keyFile.private_key_id, token_uri: fake.tokenUrl } };
    const t = vertexTarget(GEMINI, options);
    // The fake token endpoint checks the assertion's dates against the real clock.
    const helpers = fakeHelpers({ now: Date.now });
    await vertex.generate(providerCall({ request: ask("Hi"), target: t, helpers }));
    await vertex.generate(providerCall({ request: ask("Hi"), target: t, helpers }));
    expect(fake.tokenRequests).toHaveLength(1);
    const first = fake.requests[0]!.token;
    expect(fake.requests[1]!.token).toBe(first);
    fake.oauth.revoke(first);
    await vertex.generate(providerCall({ request: ask("Hi"), target: t, helpers }));
    expect(fake.tokenRequests).toHaveLength(2);
    expect(fake.requests[2]!.token).not.toBe(first);
    expect(fake.seen.filter((line) => line.includes(":generateContent"))).toHaveLength(4);
  });

  test("a key Google does not know: a retryable 502 naming no secret", async () => {
    const stranger = makeServiceAccount(PROJECT, fake.tokenUrl, "stranger");
    const error = await failure(vertex.generate(providerCall({ request: ask("Hi"), target: vertexTarget(GEMINI, { service_account: { ...stranger.keyFile } }), helpers: fakeHelpers({ now: Date.now }) })));
    expect([error.status, error.retryable, error.type]).toEqual([502, true, "provider_unavailable"]);
    expect(JSON.stringify({ message: error.message, metadata: error.metadata })).not.toContain("PRIVATE KEY");
  });
});

describe("Vertex's refusals", () => {
  test("429 RESOURCE_EXHAUSTED: a retryable rate limit", async () => {
    const error = await failure(vertex.generate(providerCall({ request: ask("Hi [vertex:429]"), target: vertexTarget(GEMINI) })));
    expect([error.status, error.type, error.retryable, error.metadata?.provider_code]).toEqual([429, "rate_limit_exceeded", true, "RESOURCE_EXHAUSTED"]);
    const claude = await failure(vertex.stream(providerCall({ request: ask("Hi [vertex:429]"), target: vertexTarget(CLAUDE) })));
    expect([claude.status, claude.type]).toEqual([429, "rate_limit_exceeded"]);
  });

  test("an unknown model, another project, a token Google did not issue: retryable 502s (the operator's setup)", async () => {
    const missing = await failure(vertex.generate(providerCall({ request: ask("Hi"), target: vertexTarget("gemini-0.1-nope") })));
    expect([missing.status, missing.retryable, missing.metadata?.provider_code]).toEqual([502, true, "NOT_FOUND"]);
    const project = await failure(vertex.generate(providerCall({ request: ask("Hi"), target: target({ ...vertexTarget(GEMINI), options: { project: "other-project", access_token: TOKEN } }) })));
    expect([project.status, project.metadata?.provider_code]).toEqual([502, "PERMISSION_DENIED"]);
    expect(project.message).not.toContain("other-project");
    const token = await failure(vertex.generate(providerCall({ request: ask("Hi"), target: vertexTarget(GEMINI, { access_token: "ya29.wrong" }) })));
    expect([token.status, token.metadata?.provider_code]).toEqual([502, "UNAUTHENTICATED"]);
    // A fixed token cannot be renewed: asked once.
    expect(fake.seen.filter((line) => line.includes(GEMINI))).toHaveLength(2);
  });

  test("the model's own errors are mapped by its translation: Gemini's 500, Claude's in-band overload", async () => {
    const internal = await failure(vertex.generate(providerCall({ request: ask("Hi [vertex:500]"), target: vertexTarget(GEMINI) })));
    expect([internal.status, internal.type, internal.retryable]).toEqual([502, "provider_unavailable", true]);
    const events = await vertex.stream(providerCall({ request: ask("Hi [vertex:stream-error]"), target: vertexTarget(CLAUDE) }));
    const seen: string[] = [];
    let error: GatewayError | undefined;
    for await (const event of events) {
      seen.push(event.type);
      if (event.type === "error") error = event.error as GatewayError;
    }
    expect(seen).toContain("text-delta");
    expect(error?.type).toBe("provider_overloaded");
  });
});

describe("a base_url that is not Vertex's", () => {
  test("its HTML 404 is a retryable 502 (the operator's setup), not a 404 for the client", async () => {
    const wrong = target({ ...vertexTarget(GEMINI), baseUrl: `${fake.endpoint}/not-vertex` });
    const error = await failure(vertex.generate(providerCall({ request: ask("Hi"), target: wrong })));
    expect([error.status, error.retryable, error.type]).toEqual([502, true, "provider_unavailable"]);
  });

  test("a fixed token Vertex refuses: the log names credentials.access_token", async () => {
    const warnings: unknown[] = [];
    const helpers = fakeHelpers({ logger: { warn: (...args: unknown[]) => warnings.push(args) } as never });
    await failure(vertex.generate(providerCall({ request: ask("Hi"), target: vertexTarget(GEMINI, { access_token: "ya29.expired" }), helpers })));
    expect(JSON.stringify(warnings)).toContain("credentials.access_token");
    expect(JSON.stringify(warnings)).not.toContain("ya29.expired");
  });
});
