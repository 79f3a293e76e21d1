/**
 * Embeddings on the cloud adapters (README "Embeddings and rerank"), each against a loopback fake that records what it
 * received, the fake first checked with the official client: Gemini (`embedContent` for one input,
 * `batchEmbedContents` for several; @google/genai), Azure deployments (the `openai` AzureOpenAI client), and Bedrock
 * InvokeModel for Titan and Cohere embedding models (SigV4 checked by the fake; @aws-sdk/client-bedrock-runtime),
 * and Vertex AI's `:predict` for Google's text-embedding models (OAuth bearer token; @google/genai with `vertexai`).
 */
import { afterAll, beforeAll, beforeEach, expect, test } from "bun:test";
import { BedrockRuntimeClient, InvokeModelCommand } from "@aws-sdk/client-bedrock-runtime";
import { NodeHttpHandler } from "@smithy/node-http-handler";
import { GoogleGenAI } from "@google/genai";
import { OAuth2Client } from "google-auth-library";
import OpenAI, { AzureOpenAI } from "openai";
import { REGION, STATIC_KEY } from "../../support/fake-bedrock/identities.ts";
import { startFakeBedrock, type BedrockRequest, type BedrockReply, type FakeBedrock } from "../../support/fake-bedrock/server.ts";
import { startFakeVertex, type FakeVertex } from "../../support/fake-vertex/server.ts";
import { fakeVector, startFakeRetrieval, type FakeRetrieval } from "../../support/fake-retrieval/server.ts";
import { startTestGateway, type TestGateway } from "../../support/gateway.ts";

type Json = Record<string, any>;
const PRICE = { prompt: 0.000001, completion: 0 };
const TITAN = "amazon.titan-embed-text-v2:0";
const COHERE = "cohere.embed-english-v3";
const PROJECT = "acme-genai-prod";
const LOCATION = "us-central1";
const VERTEX_TOKEN = "ya29.vertex-embeddings-test-token";
const TEXT_EMBEDDING = "text-embedding-005";
const GEMINI_EMBEDDING = "gemini-embedding-001";
const PREDICT_ROOT = `/v1/projects/${PROJECT}/locations/${LOCATION}/publishers/google/models`;
let fake: FakeRetrieval;
let bedrock: FakeBedrock;
let vertex: FakeVertex;
let gw: TestGateway;

/** The fake Bedrock's InvokeModel answers, in each family's shape. */
function invokeReply(request: BedrockRequest): BedrockReply {
  const body = request.body as Json;
  if (request.modelId === TITAN) return { kind: "invoke", body: { embedding: fakeVector(body.inputText), inputTextTokenCount: body.inputText.split(" ").length } };
  return { kind: "invoke", body: { id: "c", embeddings: { float: body.texts.map((t: string) => fakeVector(t)) }, texts: body.texts, response_type: "embeddings_by_type" }, headers: { "x-amzn-bedrock-input-token-count": "7" } };
}

beforeAll(async () => {
  fake = await startFakeRetrieval();
  bedrock = await startFakeBedrock({ respond: invokeReply });
  vertex = await startFakeVertex({ project: PROJECT, location: LOCATION, models: { google: [TEXT_EMBEDDING, GEMINI_EMBEDDING] }, staticTokens: [VERTEX_TOKEN] });
  const embeddings = (id: string, upstream: string) => ({ id, upstream_model: upstream, pricing: PRICE, output_modalities: ["embeddings" as const] });
  const credentials = { access_key_id: STATIC_KEY.accessKeyId, secret_access_key: STATIC_KEY.secretAccessKey };
  gw = await startTestGateway({
    file: {
      simulator: true,
      providers: [
        { id: "google", adapter: "gemini", base_url: `${fake.origin}/gemini/v1beta`, api_key: "g-key", models: [embeddings("google/embed", "gemini-embedding-001")] },
        { id: "az", adapter: "azure", base_url: `${fake.origin}/openai`, api_version: "2024-10-21", api_key: "az-key", models: [embeddings("az/embed", "embed-prod")] },
        { id: "az1", adapter: "azure", base_url: `${fake.origin}/openai/v1`, api_key: "az-key", models: [embeddings("az1/embed", "embed-v1")] },
        { id: "aws", adapter: "bedrock", region: REGION, base_url: bedrock.origin, credentials, models: [embeddings("aws/titan", TITAN), embeddings("aws/cohere", COHERE)] },
        {
          id: "gcp",
          adapter: "vertex",
          base_url: vertex.endpoint,
          project: PROJECT,
          location: LOCATION,
          credentials: { access_token: { env: "VERTEX_ACCESS_TOKEN" } },
          // gemini-embedding-001 takes one instance per :predict call.
          models: [embeddings("gcp/embed", TEXT_EMBEDDING), { ...embeddings("gcp/gemini-embed", GEMINI_EMBEDDING), max_batch_size: 1 }],
        },
      ],
    },
    env: { VERTEX_ACCESS_TOKEN: VERTEX_TOKEN },
  });
});
afterAll(async () => {
  await gw.close();
  await fake.stop();
  await bedrock.stop();
  await vertex.stop();
});
beforeEach(() => {
  fake.reset();
  vertex.reset();
});

const embed = async (model: string, input: unknown, extra: Json = {}) => {
  const res = await gw.request("/embeddings", { method: "POST", json: { model, input, ...extra } });
  return { status: res.status, body: (await res.json()) as Json };
};

test("the Gemini fake answers @google/genai's embedContent for several contents (its batchEmbedContents)", async () => {
  const ai = new GoogleGenAI({ apiKey: "g-key", httpOptions: { baseUrl: `${fake.origin}/gemini` } });
  const reply = await ai.models.embedContent({ model: "gemini-embedding-001", contents: ["a b", "c"] });
  expect(reply.embeddings?.map((e) => e.values)).toEqual([fakeVector("a b"), fakeVector("c")]);
  expect(fake.requests[0]!.path).toBe("/gemini/v1beta/models/gemini-embedding-001:batchEmbedContents");
});

test("gemini: one input is embedContent, several batchEmbedContents; taskType and outputDimensionality mapped; the key header", async () => {
  const one = await embed("google/embed", "hello there", { input_type: "RETRIEVAL_QUERY", dimensions: 3 });
  const many = await embed("google/embed", ["a b", "c"]);
  expect(fake.requests.map((r) => [r.path, r.body])).toEqual([
    ["/gemini/v1beta/models/gemini-embedding-001:embedContent", { content: { parts: [{ text: "hello there" }] }, taskType: "RETRIEVAL_QUERY", outputDimensionality: 3 }],
    [
      "/gemini/v1beta/models/gemini-embedding-001:batchEmbedContents",
      { requests: [{ model: "models/gemini-embedding-001", content: { parts: [{ text: "a b" }] } }, { model: "models/gemini-embedding-001", content: { parts: [{ text: "c" }] } }] },
    ],
  ]);
  expect(fake.requests[0]!.headers["x-goog-api-key"]).toBe("g-key");
  expect(one.body.data[0].embedding).toEqual(fakeVector("hello there"));
  expect(many.body.data.map((d: Json) => d.embedding)).toEqual([fakeVector("a b"), fakeVector("c")]);
  // Gemini reports no count: estimated at about four bytes per token.
  expect(many.body.usage.prompt_tokens).toBe(2);
});

test("the Azure fake answers the AzureOpenAI client's embeddings.create on a deployment", async () => {
  const client = new AzureOpenAI({ endpoint: fake.origin, apiKey: "az-key", apiVersion: "2024-10-21", deployment: "embed-prod" });
  const reply = await client.embeddings.create({ model: "embed-prod", input: ["x y"], encoding_format: "float" });
  expect(reply.data[0]!.embedding).toEqual(fakeVector("x y"));
  expect(fake.requests[0]!.path).toBe("/openai/deployments/embed-prod/embeddings?api-version=2024-10-21");
});

test("azure: the deployments URL with api-version and api-key, or the v1 URL with the deployment as model", async () => {
  const dated = await embed("az/embed", ["x y", "z"]);
  const v1 = await embed("az1/embed", "w");
  expect(fake.requests.map((r) => r.path)).toEqual(["/openai/deployments/embed-prod/embeddings?api-version=2024-10-21", "/openai/v1/embeddings"]);
  expect(fake.requests[0]!.headers["api-key"]).toBe("az-key");
  expect(fake.requests[0]!.headers.authorization).toBeUndefined();
  expect(fake.requests[1]!.body).toEqual({ model: "embed-v1", input: ["w"], encoding_format: "float" });
  expect(dated.body.data.map((d: Json) => d.embedding)).toEqual([fakeVector("x y"), fakeVector("z")]);
  expect(v1.body.usage.prompt_tokens).toBe(1);
});

test("the Bedrock fake answers InvokeModelCommand of the official client (SigV4 checked)", async () => {
  const client = new BedrockRuntimeClient({ region: REGION, endpoint: bedrock.origin, credentials: STATIC_KEY, maxAttempts: 1, requestHandler: new NodeHttpHandler() });
  const reply = await client.send(new InvokeModelCommand({ modelId: TITAN, contentType: "application/json", body: JSON.stringify({ inputText: "p q" }) }));
  expect(JSON.parse(new TextDecoder().decode(reply.body)).embedding).toEqual(fakeVector("p q"));
});

test("bedrock Titan: one signed InvokeModel per input, in order, token counts from the body", async () => {
  const before = bedrock.requests.length;
  const { status, body } = await embed("aws/titan", ["one two", "three"], { dimensions: 256 });
  expect(status).toBe(200);
  const sent = bedrock.requests.slice(before);
  expect(sent.map((r) => [r.modelId, r.operation, r.body, r.auth?.kind])).toEqual([
    [TITAN, "invoke", { inputText: "one two", dimensions: 256 }, "sigv4"],
    [TITAN, "invoke", { inputText: "three", dimensions: 256 }, "sigv4"],
  ]);
  expect(body.data.map((d: Json) => d.embedding)).toEqual([fakeVector("one two"), fakeVector("three")]);
  expect(body.usage.prompt_tokens).toBe(3);
});

test("bedrock Cohere: one call with the texts, input_type and float embeddings; tokens from Bedrock's header", async () => {
  const before = bedrock.requests.length;
  const { body } = await embed("aws/cohere", ["alpha", "beta gamma"], { input_type: "search_query" });
  expect(bedrock.requests.slice(before).map((r) => r.body)).toEqual([{ texts: ["alpha", "beta gamma"], input_type: "search_query", embedding_types: ["float"] }]);
  expect(body.data.map((d: Json) => d.embedding)).toEqual([fakeVector("alpha"), fakeVector("beta gamma")]);
  expect(body.usage.prompt_tokens).toBe(7);
});

/** The gateway through the `openai` client (no retries of its own, so a 429 is seen as the gateway answered it). */
const openai = () => new OpenAI({ apiKey: gw.inferenceKey, baseURL: gw.baseUrl, maxRetries: 0 });
const sized = (values: number[], n: number) => Array.from({ length: n }, (_, i) => values[i] ?? 0);

test("the Vertex fake answers @google/genai's embedContent in Vertex mode (its :predict), statistics included", async () => {
  const auth = new OAuth2Client();
  auth.setCredentials({ access_token: VERTEX_TOKEN, expiry_date: Date.now() + 3_600_000 });
  const ai = new GoogleGenAI({ vertexai: true, project: PROJECT, location: LOCATION, apiVersion: "v1", httpOptions: { baseUrl: vertex.endpoint }, googleAuthOptions: { authClient: auth } });
  const reply = await ai.models.embedContent({ model: TEXT_EMBEDDING, contents: ["a b", "c"], config: { taskType: "RETRIEVAL_DOCUMENT", outputDimensionality: 4, autoTruncate: false } });
  expect(reply.embeddings?.map((e) => e.values)).toEqual([sized(fakeVector("a b"), 4), sized(fakeVector("c"), 4)]);
  expect(reply.embeddings?.map((e) => e.statistics?.tokenCount)).toEqual([2, 1]);
  const sent = vertex.requests[0]!;
  expect(sent.path).toBe(`${PREDICT_ROOT}/${TEXT_EMBEDDING}:predict`);
  expect(sent.body).toEqual({ instances: [{ content: "a b", task_type: "RETRIEVAL_DOCUMENT" }, { content: "c", task_type: "RETRIEVAL_DOCUMENT" }], parameters: { outputDimensionality: 4, autoTruncate: false } });
});

test("vertex through the openai client: floats for several inputs in one :predict, dimensions → outputDimensionality, the token as Bearer, usage from token_count", async () => {
  const reply = await openai().embeddings.create({ model: "gcp/embed", input: ["one two", "three"], dimensions: 5, encoding_format: "float" });
  expect(reply.data.map((d) => [d.index, d.embedding])).toEqual([
    [0, sized(fakeVector("one two"), 5)],
    [1, sized(fakeVector("three"), 5)],
  ]);
  expect(reply.usage.prompt_tokens).toBe(3);
  expect(vertex.requests.map((r) => [r.path, r.body])).toEqual([[`${PREDICT_ROOT}/${TEXT_EMBEDDING}:predict`, { instances: [{ content: "one two" }, { content: "three" }], parameters: { autoTruncate: false, outputDimensionality: 5 } }]]);
  expect(vertex.requests[0]!.headers.authorization).toBe(`Bearer ${VERTEX_TOKEN}`);
  expect(vertex.requests[0]!.headers["x-goog-api-key"]).toBeUndefined();
});

test("vertex through the openai client: base64 (its default) decodes to the upstream's floats; input_type → task_type", async () => {
  const reply = await openai().embeddings.create({ model: "gcp/embed", input: "hello big world" });
  expect(reply.data[0]!.embedding).toEqual(fakeVector("hello big world"));
  const typed = await embed("gcp/embed", ["q"], { input_type: "RETRIEVAL_QUERY" });
  expect(typed.status).toBe(200);
  expect(vertex.requests.map((r) => r.body.instances)).toEqual([[{ content: "hello big world" }], [{ content: "q", task_type: "RETRIEVAL_QUERY" }]]);
});

test("vertex max_batch_size 1: three inputs are three :predict calls (gemini-embedding-001 takes one), joined in order, usage summed", async () => {
  const reply = await openai().embeddings.create({ model: "gcp/gemini-embed", input: ["a", "b c", "d e f"], encoding_format: "float" });
  expect(vertex.requests.map((r) => [r.path, r.body.instances])).toEqual([
    [`${PREDICT_ROOT}/${GEMINI_EMBEDDING}:predict`, [{ content: "a" }]],
    [`${PREDICT_ROOT}/${GEMINI_EMBEDDING}:predict`, [{ content: "b c" }]],
    [`${PREDICT_ROOT}/${GEMINI_EMBEDDING}:predict`, [{ content: "d e f" }]],
  ]);
  expect(reply.data.map((d) => d.embedding)).toEqual([fakeVector("a"), fakeVector("b c"), fakeVector("d e f")]);
  expect(reply.usage.prompt_tokens).toBe(6);
});

test("vertex: RESOURCE_EXHAUSTED is the client's 429 rate limit; token ids are a 400 naming input", async () => {
  const error = await openai()
    .embeddings.create({ model: "gcp/embed", input: ["fine", "[vertex:429] busy"], encoding_format: "float" })
    .then(() => undefined, (thrown: unknown) => thrown);
  expect(error).toBeInstanceOf(OpenAI.RateLimitError);
  expect((error as InstanceType<typeof OpenAI.RateLimitError>).status).toBe(429);
  expect(JSON.stringify((error as InstanceType<typeof OpenAI.RateLimitError>).error)).toContain("RESOURCE_EXHAUSTED");
  expect(vertex.requests.length).toBeGreaterThan(0);
  const tokens = await embed("gcp/embed", [[1, 2, 3]]);
  expect(tokens.status).toBe(400);
  expect(JSON.stringify(tokens.body)).toContain("token ids");
});
