/**
 * POST /embeddings, GET /embeddings/models and POST /rerank through the clients people use (README "Embeddings and
 * rerank"), against the built-in simulator: the `openai` client (floats and base64), the peer SDK (whose zod schemas
 * must parse our answers), LangChain's OpenAIEmbeddings and the AI SDK's embedMany.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createOpenAI } from "@ai-sdk/openai";
import { OpenAIEmbeddings } from "@langchain/openai";
import { embedMany } from "ai";
import OpenAI from "openai";
import { simulatedVector } from "../../../providers/simulator/retrieval.ts";
import { startTestGateway, type TestGateway } from "../../support/gateway.ts";
import { sdkClient } from "../../support/openrouter-sdk.ts";

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw.close());

const MODEL = "simulator/embedding";

function close(actual: readonly number[], expected: readonly number[], digits = 6): void {
  expect(actual).toHaveLength(expected.length);
  actual.forEach((value, i) => expect(value).toBeCloseTo(expected[i]!, digits));
}

test("openai embeddings.create: floats, one unit vector per input in order, the same input the same vector", async () => {
  const client = new OpenAI({ apiKey: gw.inferenceKey, baseURL: gw.baseUrl });
  const reply = await client.embeddings.create({ model: MODEL, input: ["alpha", "beta", "alpha"], encoding_format: "float" });
  expect(reply.object).toBe("list");
  expect(reply.model).toBe(MODEL);
  expect(reply.data.map((d) => d.index)).toEqual([0, 1, 2]);
  const [a, b, again] = reply.data.map((d) => d.embedding);
  expect(a).toHaveLength(256);
  expect(a!.reduce((s, x) => s + x * x, 0)).toBeCloseTo(1, 9);
  expect(again).toEqual(a!);
  expect(b).not.toEqual(a!);
  close(a!, simulatedVector("alpha", 256), 12);
  // One token per word (the simulator's tokenizer), counted on the gateway's bill.
  expect(reply.usage).toMatchObject({ prompt_tokens: 3, total_tokens: 3 });
});

test("openai embeddings.create: base64 by default (the client decodes float32 little-endian), dimensions honoured", async () => {
  const client = new OpenAI({ apiKey: gw.inferenceKey, baseURL: gw.baseUrl });
  // Without encoding_format the client asks for base64 and decodes it itself.
  const reply = await client.embeddings.create({ model: MODEL, input: "gamma delta", dimensions: 8 });
  close(reply.data[0]!.embedding, simulatedVector("gamma delta", 8));
  const raw = await gw.request("/embeddings", { method: "POST", json: { model: MODEL, input: "gamma delta", dimensions: 8, encoding_format: "base64" } });
  const body = (await raw.json()) as { data: Array<{ embedding: string }> };
  expect(typeof body.data[0]!.embedding).toBe("string");
  expect(Buffer.from(body.data[0]!.embedding, "base64")).toHaveLength(8 * 4);
});

test("token-id inputs: one array, or an array of arrays", async () => {
  const one = await gw.request("/embeddings", { method: "POST", json: { model: MODEL, input: [1, 2, 3] } });
  const many = await gw.request("/embeddings", { method: "POST", json: { model: MODEL, input: [[1, 2, 3], [4]] } });
  const a = (await one.json()) as { data: Array<{ embedding: number[] }>; usage: { prompt_tokens: number } };
  const b = (await many.json()) as { data: Array<{ embedding: number[] }>; usage: { prompt_tokens: number } };
  expect(a.data).toHaveLength(1);
  expect(b.data).toHaveLength(2);
  expect(b.data[0]!.embedding).toEqual(a.data[0]!.embedding);
  expect([a.usage.prompt_tokens, b.usage.prompt_tokens]).toEqual([3, 4]);
});

test("the peer SDK: embeddings.generate and embeddings.listModels parse; rerank.rerank ranks best first", async () => {
  const { sdk } = sdkClient(gw, gw.inferenceKey);
  const generated = await sdk.embeddings.generate({ requestBody: { model: MODEL, input: ["one", "two"], encodingFormat: "float" } });
  if (typeof generated === "string") throw new Error("expected a JSON body");
  expect(generated.data).toHaveLength(2);
  expect(generated.usage?.promptTokens).toBe(2);
  expect(generated.usage?.cost).toBeCloseTo(2 * 0.00000002, 12);
  const listed: Array<{ id: string; architecture: { outputModalities: string[] } }> = [];
  // The SDK pages with offset and limit, like models.list.
  for await (const page of await sdk.embeddings.listModels({})) listed.push(...page.result.data);
  expect(listed.map((m) => m.id)).toEqual([MODEL]);
  expect(listed[0]!.architecture.outputModalities).toEqual(["embeddings"]);
  const ranked = await sdk.rerank.rerank({
    requestBody: { model: "simulator/rerank", query: "red apple", documents: ["green pear", "a red apple", { text: "red car" }], topN: 2 },
  });
  if (typeof ranked === "string") throw new Error("expected a JSON body");
  expect(ranked.model).toBe("simulator/rerank");
  expect(ranked.results.map((r) => [r.index, r.relevanceScore, r.document.text])).toEqual([
    [1, 1, "a red apple"],
    [2, 0.5, "red car"],
  ]);
  expect(ranked.usage).toMatchObject({ searchUnits: 1, totalTokens: 2 * 3 + 2 + 3 + 2 });
});

test("/models shows the retrieval models' modalities; /embeddings/models lists only embedding models", async () => {
  const all = (await (await gw.request("/models", { key: null })).json()) as { data: Array<{ id: string; architecture: { output_modalities: string[] } }> };
  const byId = new Map(all.data.map((m) => [m.id, m.architecture.output_modalities]));
  expect(byId.get(MODEL)).toEqual(["embeddings"]);
  expect(byId.get("simulator/rerank")).toEqual(["rerank"]);
  const listed = (await (await gw.request("/embeddings/models", { key: null })).json()) as { data: Array<{ id: string }> };
  expect(listed.data.map((m) => m.id)).toEqual([MODEL]);
});

test("LangChain OpenAIEmbeddings: embedDocuments and embedQuery", async () => {
  const embeddings = new OpenAIEmbeddings({ model: MODEL, apiKey: gw.inferenceKey, configuration: { baseURL: gw.baseUrl }, dimensions: 16 });
  const documents = await embeddings.embedDocuments(["first doc", "second doc"]);
  expect(documents).toHaveLength(2);
  close(documents[1]!, simulatedVector("second doc", 16));
  close(await embeddings.embedQuery("the query"), simulatedVector("the query", 16));
});

test("AI SDK embedMany through @ai-sdk/openai", async () => {
  const openai = createOpenAI({ apiKey: gw.inferenceKey, baseURL: gw.baseUrl });
  const { embeddings, usage } = await embedMany({ model: openai.embedding(MODEL), values: ["sunny day", "rainy night"] });
  expect(embeddings).toHaveLength(2);
  close(embeddings[0]!, simulatedVector("sunny day", 256));
  expect(usage.tokens).toBe(4);
});
