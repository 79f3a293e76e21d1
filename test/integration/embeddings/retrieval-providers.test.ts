/**
 * The retrieval-only adapters (README "Embeddings and rerank"): Cohere (v2 rerank and embed), Jina and Voyage
 * (rerank, OpenAI-shaped embeddings), each against the loopback fake in its upstream's shape: what each receives,
 * and the answers the gateway makes of their replies (the peer SDK parses the rerank result). The fake's Cohere and
 * Voyage routes are checked against the official `cohere-ai` and `voyageai` clients in retrieval-fakes-sdk.test.ts;
 * Jina has no official JavaScript client, so its routes follow Jina's published request and reply shapes.
 */
import { afterAll, beforeAll, beforeEach, expect, test } from "bun:test";
import { fakeVector, startFakeRetrieval, type FakeRetrieval } from "../../support/fake-retrieval/server.ts";
import { startTestGateway, type TestGateway } from "../../support/gateway.ts";
import { sdkClient } from "../../support/openrouter-sdk.ts";

type Json = Record<string, any>;
let fake: FakeRetrieval;
let gw: TestGateway;
const PRICE = { prompt: 0.000001, completion: 0 };

beforeAll(async () => {
  fake = await startFakeRetrieval();
  const models = (name: string) => [
    { id: `${name}/rerank`, upstream_model: `${name}-rerank-v3`, pricing: PRICE, output_modalities: ["rerank" as const] },
    { id: `${name}/embed`, upstream_model: `${name}-embed-v3`, pricing: PRICE, output_modalities: ["embeddings" as const] },
  ];
  gw = await startTestGateway({
    file: {
      simulator: true,
      providers: [
        { id: "cohere", adapter: "cohere", base_url: `${fake.origin}/cohere/v2`, api_key: "co-key", models: models("cohere") },
        { id: "jina", adapter: "jina", base_url: `${fake.origin}/jina/v1`, api_key: "jina-key", models: models("jina") },
        { id: "voyage", adapter: "voyage", base_url: `${fake.origin}/voyage/v1`, api_key: "vo-key", models: [...models("voyage"), { id: "voyage/chat", upstream_model: "x", pricing: PRICE }] },
      ],
    },
  });
});
afterAll(async () => {
  await gw.close();
  await fake.stop();
});
beforeEach(() => fake.reset());

const DOCUMENTS = ["green pear", "a red apple", "red car"];

for (const [name, sent] of [
  ["cohere", { model: "cohere-rerank-v3", query: "red apple", documents: DOCUMENTS, top_n: 2 }],
  ["jina", { model: "jina-rerank-v3", query: "red apple", documents: DOCUMENTS, top_n: 2, return_documents: false }],
  ["voyage", { model: "voyage-rerank-v3", query: "red apple", documents: DOCUMENTS, top_k: 2 }],
] as const) {
  test(`${name} rerank: the upstream gets its own request shape; the peer SDK parses the ranking`, async () => {
    const { sdk } = sdkClient(gw, gw.inferenceKey);
    const ranked = await sdk.rerank.rerank({ requestBody: { model: `${name}/rerank`, query: "red apple", documents: DOCUMENTS, topN: 2 } });
    if (typeof ranked === "string") throw new Error("expected JSON");
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]!.body).toEqual(sent);
    expect(fake.requests[0]!.headers.authorization).toStartWith("Bearer ");
    expect(ranked.provider).toBe(name);
    expect(ranked.results.map((r) => [r.index, r.relevanceScore, r.document.text])).toEqual([
      [1, 1, "a red apple"],
      [2, 0.5, "red car"],
    ]);
  });
}

test("cohere rerank: search units carried into usage", async () => {
  const body = (await (await gw.request("/rerank", { method: "POST", json: { model: "cohere/rerank", query: "red", documents: ["red"] } })).json()) as Json;
  expect(body.usage.search_units).toBe(1);
});

test("cohere embed: texts, input_type (search_document unless asked), float vectors, billed input tokens", async () => {
  const body = (await (await gw.request("/embeddings", { method: "POST", json: { model: "cohere/embed", input: ["a b", "c"], input_type: "search_query", dimensions: 3 } })).json()) as Json;
  expect(fake.requests[0]!.body).toEqual({ model: "cohere-embed-v3", texts: ["a b", "c"], input_type: "search_query", embedding_types: ["float"], output_dimension: 3 });
  expect(body.data.map((d: Json) => d.embedding)).toEqual([fakeVector("a b"), fakeVector("c")]);
  expect(body.usage.prompt_tokens).toBe(3);
  const ids = await gw.request("/embeddings", { method: "POST", json: { model: "cohere/embed", input: [1, 2] } });
  expect(ids.status).toBe(400);
  expect(((await ids.json()) as Json).error.message).toContain("embeds texts only");
});

test("jina and voyage embed: OpenAI-shaped calls with their own names for the input type and the dimensions", async () => {
  await gw.request("/embeddings", { method: "POST", json: { model: "jina/embed", input: "x", input_type: "retrieval.query", dimensions: 3 } });
  await gw.request("/embeddings", { method: "POST", json: { model: "voyage/embed", input: "x", input_type: "query", dimensions: 3 } });
  expect(fake.requests.map((r) => [r.path, r.body])).toEqual([
    ["/jina/v1/embeddings", { model: "jina-embed-v3", input: ["x"], encoding_format: "float", dimensions: 3, task: "retrieval.query" }],
    ["/voyage/v1/embeddings", { model: "voyage-embed-v3", input: ["x"], input_type: "query", output_dimension: 3 }],
  ]);
});

test("a chat request to a retrieval-only provider's model is a 400 naming the provider, and nothing is sent", async () => {
  const res = await gw.request("/chat/completions", { method: "POST", json: { model: "voyage/chat", messages: [{ role: "user", content: "hi" }] } });
  expect(res.status).toBe(400);
  expect(((await res.json()) as Json).error.message).toContain("serves embeddings and rerank only");
  expect(fake.requests).toHaveLength(0);
});
