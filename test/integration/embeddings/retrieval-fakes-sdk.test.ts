/**
 * The loopback fake of the retrieval-only upstreams (test/support/fake-retrieval/) driven by the official clients of
 * the services it stands for: `cohere-ai` (`CohereClientV2`: v2 `rerank` and `embed`) and `voyageai`
 * (`VoyageAIClient`: `rerank` and `embed`). Each client is pointed at the fake, and the request it sends is set
 * against the one the gateway's adapter (providers/cohere, providers/voyage) sends for the same call: same path, same
 * bearer key, same body fields. Then the client must read the fake's answers with their true values. If the fake or an
 * adapter drifted from the real API, these fail before any gateway test relied on the fake.
 * Jina publishes no official JavaScript client (only its HTTP API), so the `jina` routes of the fake follow Jina's
 * published request and reply shapes and are checked only by test/integration/embeddings/retrieval-providers.test.ts.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { CohereClientV2 } from "cohere-ai";
import { VoyageAIClient } from "voyageai";
import { fakeVector, startFakeRetrieval, type FakeRetrieval, type RecordedRequest } from "../../support/fake-retrieval/server.ts";
import { startTestGateway, type TestGateway } from "../../support/gateway.ts";

const DOCUMENTS = ["green pear", "a red apple", "red car"];
const PRICE = { prompt: 0.000001, completion: 0 };
let fake: FakeRetrieval;
let gw: TestGateway;

beforeAll(async () => {
  fake = await startFakeRetrieval();
  const models = (name: string) => [
    { id: `${name}/rerank`, upstream_model: `${name}-rerank`, pricing: PRICE, output_modalities: ["rerank" as const] },
    { id: `${name}/embed`, upstream_model: `${name}-embed`, pricing: PRICE, output_modalities: ["embeddings" as const] },
  ];
  gw = await startTestGateway({
    file: {
      simulator: true,
      providers: [
        { id: "cohere", adapter: "cohere", base_url: `${fake.origin}/cohere/v2`, api_key: "co-key", models: models("cohere") },
        { id: "voyage", adapter: "voyage", base_url: `${fake.origin}/voyage/v1`, api_key: "vo-key", models: models("voyage") },
      ],
    },
  });
});
afterAll(async () => {
  await gw.close();
  await fake.stop();
});
beforeEach(() => fake.reset());

// Retries off: a failure must show here, not be hidden by a second try.
const cohere = () => new CohereClientV2({ token: "co-key", environment: `${fake.origin}/cohere`, maxRetries: 0 });
const voyage = () => new VoyageAIClient({ apiKey: "vo-key", baseUrl: `${fake.origin}/voyage/v1`, maxRetries: 0 });

/** What the adapter sends upstream for one gateway request (the fake's single recorded request). */
async function adapterSends(route: "/rerank" | "/embeddings", json: Record<string, unknown>): Promise<RecordedRequest> {
  fake.reset();
  const res = await gw.request(route, { method: "POST", json });
  expect(res.status).toBe(200);
  expect(fake.requests).toHaveLength(1);
  return fake.requests[0]!;
}

/** The fake's single recorded request from an official client's call. */
function clientSent(): RecordedRequest {
  expect(fake.requests).toHaveLength(1);
  return fake.requests[0]!;
}

function expectSameCall(fromClient: RecordedRequest, fromAdapter: RecordedRequest, key: string): void {
  expect(fromClient.method).toBe("POST");
  expect(fromAdapter.path).toBe(fromClient.path);
  expect(fromClient.headers.authorization).toBe(`Bearer ${key}`);
  expect(fromAdapter.headers.authorization).toBe(`Bearer ${key}`);
  expect(fromAdapter.body).toEqual(fromClient.body);
}

describe("cohere-ai CohereClientV2", () => {
  test("rerank: /v2/rerank with the adapter's body; results with index and relevance_score, search units", async () => {
    const reply = await cohere().rerank({ model: "cohere-rerank", query: "red apple", documents: DOCUMENTS, topN: 2 });
    const sent = clientSent();
    expect(sent.path).toBe("/cohere/v2/rerank");
    expect(sent.body).toEqual({ model: "cohere-rerank", query: "red apple", documents: DOCUMENTS, top_n: 2 });
    expect(reply.results).toEqual([
      { index: 1, relevanceScore: 1 },
      { index: 2, relevanceScore: 0.5 },
    ]);
    expect(reply.meta?.billedUnits?.searchUnits).toBe(1);
    expectSameCall(sent, await adapterSends("/rerank", { model: "cohere/rerank", query: "red apple", documents: DOCUMENTS, top_n: 2 }), "co-key");
  });

  test("embed: /v2/embed with texts, input_type, float embeddings, output_dimension; embeddings by type", async () => {
    const reply = await cohere().embed({ model: "cohere-embed", texts: ["a b", "c"], inputType: "search_query", embeddingTypes: ["float"], outputDimension: 3 });
    const sent = clientSent();
    expect(sent.path).toBe("/cohere/v2/embed");
    expect(sent.body).toEqual({ model: "cohere-embed", texts: ["a b", "c"], input_type: "search_query", embedding_types: ["float"], output_dimension: 3 });
    expect(reply.responseType).toBe("embeddings_by_type");
    expect(reply.embeddings.float).toEqual([fakeVector("a b"), fakeVector("c")]);
    expect(reply.texts).toEqual(["a b", "c"]);
    expect(reply.meta?.billedUnits?.inputTokens).toBe(3);
    expectSameCall(sent, await adapterSends("/embeddings", { model: "cohere/embed", input: ["a b", "c"], input_type: "search_query", dimensions: 3 }), "co-key");
  });

  test("embed without an input type: the adapter sends Cohere's required input_type as search_document", async () => {
    await cohere().embed({ model: "cohere-embed", texts: ["x"], inputType: "search_document", embeddingTypes: ["float"] });
    expectSameCall(clientSent(), await adapterSends("/embeddings", { model: "cohere/embed", input: "x" }), "co-key");
  });
});

describe("voyageai VoyageAIClient", () => {
  test("rerank: /v1/rerank with top_k; data with index and relevance_score, total tokens", async () => {
    const reply = await voyage().rerank({ model: "voyage-rerank", query: "red apple", documents: DOCUMENTS, topK: 2 });
    const sent = clientSent();
    expect(sent.path).toBe("/voyage/v1/rerank");
    expect(sent.body).toEqual({ model: "voyage-rerank", query: "red apple", documents: DOCUMENTS, top_k: 2 });
    expect(reply.data).toEqual([
      { index: 1, relevanceScore: 1 },
      { index: 2, relevanceScore: 0.5 },
    ]);
    expect(reply.usage?.totalTokens).toBe(9);
    expectSameCall(sent, await adapterSends("/rerank", { model: "voyage/rerank", query: "red apple", documents: DOCUMENTS, top_n: 2 }), "vo-key");
  });

  test("embed: /v1/embeddings with input, input_type, output_dimension; Voyage's list, in input order, total tokens", async () => {
    const reply = await voyage().embed({ model: "voyage-embed", input: ["a b", "c"], inputType: "query", outputDimension: 3 });
    const sent = clientSent();
    expect(sent.path).toBe("/voyage/v1/embeddings");
    expect(sent.body).toEqual({ model: "voyage-embed", input: ["a b", "c"], input_type: "query", output_dimension: 3 });
    expect(reply.object).toBe("list");
    expect(reply.model).toBe("voyage-embed");
    expect(reply.data).toEqual([
      { object: "embedding", index: 0, embedding: fakeVector("a b") },
      { object: "embedding", index: 1, embedding: fakeVector("c") },
    ]);
    expect(reply.usage).toEqual({ totalTokens: 3 });
    expectSameCall(sent, await adapterSends("/embeddings", { model: "voyage/embed", input: ["a b", "c"], input_type: "query", dimensions: 3 }), "vo-key");
  });

  test("the gateway reads Voyage's total_tokens as the embeddings' input tokens (Voyage sends no prompt_tokens)", async () => {
    const res = await gw.request("/embeddings", { method: "POST", json: { model: "voyage/embed", input: ["a b", "c"] } });
    expect(((await res.json()) as { usage: { prompt_tokens: number } }).usage.prompt_tokens).toBe(3);
  });
});
