/**
 * providers/vertex/embed.ts called directly against the fake Vertex endpoint (its `:predict` checked with
 * @google/genai in test/integration/embeddings/cloud-embeddings.test.ts): the URL from the target's plan, a
 * service-account key's token as Bearer, Vertex's refusals mapped as on chat calls, and what it does not embed.
 */
import { afterAll, beforeAll, beforeEach, expect, test } from "bun:test";
import type { EmbeddingCall, EmbeddingRequest } from "../../../../core/sdk/index.ts";
import { GatewayError } from "../../../../core/errors.ts";
import anthropic from "../../../../providers/anthropic/index.ts";
import gemini from "../../../../providers/gemini/index.ts";
import { vertexAdapter } from "../../../../providers/vertex/index.ts";
import { makeServiceAccount } from "../../../support/fake-vertex/google-oauth.ts";
import { startFakeVertex, type FakeVertex } from "../../../support/fake-vertex/server.ts";
import { fakeHelpers, target } from "../helpers.ts";

const PROJECT = "acme-genai-prod";
const LOCATION = "europe-west4";
const MODEL = "text-embedding-005";
const TOKEN = "ya29.static-embed-token";
const vertex = vertexAdapter({ gemini, anthropic });

let fake: FakeVertex;
beforeAll(async () => {
  fake = await startFakeVertex({ project: PROJECT, location: LOCATION, models: { google: [MODEL], anthropic: ["claude-sonnet-4-5"] }, staticTokens: [TOKEN] });
});
afterAll(() => fake.stop());
beforeEach(() => fake.reset());

function embedCall(request: EmbeddingRequest, model = MODEL, options: Record<string, unknown> = { project: PROJECT, access_token: TOKEN }): EmbeddingCall {
  const upstream = target({ providerId: "gcp", baseUrl: fake.endpoint, apiKey: undefined, upstreamModel: model, region: LOCATION, options });
  // The fake token endpoint checks the assertion's dates against the real clock.
  return { request, target: upstream, signal: new AbortController().signal, helpers: fakeHelpers({ now: Date.now }), warnings: [] };
}

async function failure(promise: Promise<unknown>): Promise<GatewayError> {
  try {
    await promise;
  } catch (error) {
    return error as GatewayError;
  }
  throw new Error("expected a failure");
}

test("a service-account key: :predict on the location's model URL with the token Google's endpoint issued; revoked, renewed once", async () => {
  const account = makeServiceAccount(PROJECT, fake.tokenUrl, "embedder");
  fake.oauth.accounts.push(account);
  const { client_email, private_key, private_key_id } = account.keyFile;
  const call = embedCall({ inputs: ["a b c"] }, MODEL, { project: PROJECT, service_account: { client_email, private_key, private_key_id, token_uri: fake.tokenUrl } });
  const result = await vertex.embed!(call);
  expect(result.inputTokens).toBe(3);
  const sent = fake.requests[0]!;
  expect(sent.path).toBe(`/v1/projects/${PROJECT}/locations/${LOCATION}/publishers/google/models/${MODEL}:predict`);
  expect(fake.tokenRequests).toHaveLength(1);
  expect(sent.headers.authorization).toBe(`Bearer ${sent.token}`);
  fake.oauth.revoke(sent.token);
  await vertex.embed!(call);
  expect(fake.tokenRequests).toHaveLength(2);
  expect(fake.requests[1]!.token).not.toBe(sent.token);
});

test("Vertex's refusals as on chat calls: a model it does not serve and another project are retryable 502s", async () => {
  const missing = await failure(vertex.embed!(embedCall({ inputs: ["x"] }, "text-embedding-000")));
  expect([missing.type, missing.status, missing.retryable, missing.metadata?.provider_code]).toEqual(["provider_unavailable", 502, true, "NOT_FOUND"]);
  const stranger = await failure(vertex.embed!(embedCall({ inputs: ["x"] }, MODEL, { project: "someone-else", access_token: TOKEN })));
  expect([stranger.status, stranger.metadata?.provider_code]).toEqual([502, "PERMISSION_DENIED"]);
  expect(stranger.message).not.toContain("someone-else");
});

test("a Claude model and token ids are 400s naming the field, before anything is sent", async () => {
  const claude = await failure(vertex.embed!(embedCall({ inputs: ["x"] }, "claude-sonnet-4-5")));
  expect([claude.status, claude.metadata?.param]).toEqual([400, "model"]);
  const ids = await failure(vertex.embed!(embedCall({ inputs: [[1, 2]] })));
  expect([ids.status, ids.metadata?.param]).toEqual([400, "input"]);
  expect(fake.seen).toEqual([]);
});
