/**
 * The adapter conformance kit (`inference-gateway/sdk/conformance`) run on every built-in HTTP adapter against its
 * fake upstream on loopback: the wire fixtures (test/fixtures/wire/<adapter>/) served by the shared fake, each reply
 * picked from the request (streamed or not, tools or not, a reasoning or failure marker in the prompt), so the kit's
 * calls may come in any order. The fixtures' own expectations are the answer the adapter must report. The `openai`
 * adapter also runs against the HTTP simulator (providers/simulator/server.ts), which computes its answers.
 * (test/conformance/kit.test.ts runs the kit on the in-process simulator and the example adapters.)
 */
import { afterAll } from "bun:test";
import { adapterConformance } from "inference-gateway/sdk/conformance";
import type { ProviderAdapter, UpstreamTarget } from "inference-gateway/sdk";
import anthropic from "../../providers/anthropic/index.ts";
import bedrock from "../../providers/bedrock/index.ts";
import { azureAdapter } from "../../providers/azure/index.ts";
import { vertexAdapter } from "../../providers/vertex/index.ts";
import gemini from "../../providers/gemini/index.ts";
import openai from "../../providers/openai/index.ts";
import openaiResponses from "../../providers/openai-responses/index.ts";
import { startSimulatorServer } from "../../providers/simulator/server.ts";
import { REGION, STATIC_KEY } from "../support/fake-bedrock/identities.ts";
import { ADAPTERS, fixture, replyOf, serverErrorReply, VERTEX_LOCATION, VERTEX_PROJECT, WIRE, type AdapterId } from "../support/fake-upstream/fixtures.ts";
import { startFakeUpstream, type RecordedRequest } from "../support/fake-upstream/server.ts";

const azure = azureAdapter({ chat: openai, responses: openaiResponses });
const vertex = vertexAdapter({ gemini, anthropic });
const ADAPTER: Record<AdapterId, ProviderAdapter> = { openai, "openai-responses": openaiResponses, anthropic, gemini, bedrock, azure, "azure-responses": azure, vertex, "vertex-anthropic": vertex };
const VERTEX_TOKEN = "ya29.conformance-kit";
const FAIL = "[fake fail]";
const REASON = "[fake reason]";

/** The adapter whose wire `request` came in on (the fake serves all four on one port). */
function adapterOf(request: RecordedRequest): AdapterId {
  if (request.path.startsWith("/v1beta/")) return "gemini";
  if (request.path.includes("/publishers/google/")) return "vertex";
  if (request.path.includes("/publishers/anthropic/")) return "vertex-anthropic";
  if (request.path.startsWith("/model/")) return "bedrock";
  if (request.path === "/openai/v1/chat/completions") return "azure";
  if (request.path === "/openai/responses") return "azure-responses";
  if (request.path === "/v1/messages") return "anthropic";
  return request.path === "/v1/responses" ? "openai-responses" : "openai";
}

const fake = await startFakeUpstream({
  respond(request) {
    const adapter = adapterOf(request);
    const stream = request.body.stream === true || request.path.endsWith(":streamGenerateContent") || request.path.endsWith("/converse-stream");
    // Vertex serves a bearer token the conformance target holds (the fake Vertex endpoint checks real tokens).
    if (adapter.startsWith("vertex") && request.headers.authorization !== `Bearer ${VERTEX_TOKEN}`) return { kind: "json", status: 401, body: { error: { code: 401, message: "Request had invalid authentication credentials.", status: "UNAUTHENTICATED" } } };
    if (request.raw.includes(FAIL)) return serverErrorReply(adapter, stream);
    if (request.raw.includes(REASON)) return replyOf(adapter, "thinking", stream);
    // Bedrock's tools are under toolConfig.
    const tools = request.body.tools ?? (request.body.toolConfig as { tools?: unknown } | undefined)?.tools;
    return replyOf(adapter, Array.isArray(tools) && tools.length > 0 ? "tool-call" : "text", stream);
  },
});
const simulator = await startSimulatorServer();
afterAll(async () => {
  await fake.stop();
  await simulator.stop();
});

/** The upstream root on the fake, and the adapter options, where they are not OpenAI's `/v1` and none. */
const ROOT: Partial<Record<AdapterId, { path: string; options?: Record<string, unknown> }>> = {
  gemini: { path: "/v1beta" },
  azure: { path: "/openai/v1" },
  "azure-responses": { path: "/openai", options: { api: "responses", api_version: "2025-04-01-preview" } },
};

const target = (adapter: AdapterId): UpstreamTarget => {
  const base = { providerId: `up-${adapter}`, upstreamModel: WIRE[adapter].upstreamModel, headers: {}, options: ROOT[adapter]?.options ?? {} };
  // Bedrock signs with AWS credentials for its region (the fake checks the signature).
  if (adapter === "bedrock") {
    return { ...base, baseUrl: fake.origin, apiKey: undefined, region: REGION, credentials: { access_key_id: STATIC_KEY.accessKeyId, secret_access_key: STATIC_KEY.secretAccessKey } };
  }
  // Vertex: its project and location, a fixed access token.
  if (adapter === "vertex" || adapter === "vertex-anthropic") {
    return { ...base, baseUrl: fake.origin, apiKey: undefined, region: VERTEX_LOCATION, options: { project: VERTEX_PROJECT, access_token: VERTEX_TOKEN } };
  }
  return { ...base, baseUrl: fake.origin + (ROOT[adapter]?.path ?? "/v1"), apiKey: "sk-conformance" };
};

for (const adapter of ADAPTERS) {
  const text = fixture(adapter, "text").expect;
  adapterConformance({
    adapter: ADAPTER[adapter],
    target: target(adapter),
    prompt: "What is the capital of France?",
    deterministic: true,
    expected: { text: text.text!, usage: text.usage! },
    reasoning: { prompt: `Weather in Paris? ${REASON}` },
    failure: { prompt: `Please fail. ${FAIL}` },
  });
}

adapterConformance({
  adapter: openai,
  target: { providerId: "simulator-http", baseUrl: simulator.url, apiKey: undefined, upstreamModel: "small", headers: {}, options: {} },
  deterministic: true,
  reasoning: { prompt: "Think first. [sim reasoning=12]" },
  failure: { prompt: "Hello [sim status=503]" },
});
