/**
 * Embeddings over the OpenAI-compatible kinds (README "Embeddings and rerank"): a kind keeps the adapter's OpenAI call
 * (Ollama here: no key, its default path) unless its server differs — Mistral names the size `output_dimension`,
 * refuses `user` (warned and not sent; strict mode makes it a 422 before anything is sent) and embeds texts only.
 */
import { afterAll, beforeAll, beforeEach, expect, test } from "bun:test";
import { fakeVector, startFakeRetrieval, type FakeRetrieval } from "../../support/fake-retrieval/server.ts";
import { startTestGateway, type TestGateway } from "../../support/gateway.ts";

type Json = Record<string, any>;
let fake: FakeRetrieval;
let gw: TestGateway;

beforeAll(async () => {
  fake = await startFakeRetrieval();
  const entry = (id: string) => ({ id, upstream_model: "embed-model", pricing: { prompt: 0.000001, completion: 0 }, output_modalities: ["embeddings" as const] });
  gw = await startTestGateway({
    file: {
      simulator: true,
      providers: [
        { id: "mistral", adapter: "openai", kind: "mistral", base_url: `${fake.origin}/openai/v1`, api_key: "m-key", models: [entry("mistral/embed")] },
        { id: "ollama", adapter: "openai", kind: "ollama", base_url: `${fake.origin}/openai/v1`, models: [entry("ollama/embed")], discovery_interval_seconds: 0 },
      ],
    },
  });
});
afterAll(async () => {
  await gw.close();
  await fake.stop();
});
beforeEach(() => fake.reset());

const embed = (json: Json, headers: Record<string, string> = {}) => gw.request("/embeddings", { method: "POST", json, headers });

test("mistral: output_dimension, user warned and not sent; strict mode refuses it before anything is sent", async () => {
  const res = await embed({ model: "mistral/embed", input: ["a b"], dimensions: 3, user: "u-1" }, { "x-service-metadata": "enabled" });
  const body = (await res.json()) as Json;
  expect(fake.requests.map((r) => r.body)).toEqual([{ model: "embed-model", input: ["a b"], encoding_format: "float", output_dimension: 3 }]);
  expect(fake.requests[0]!.headers.authorization).toBe("Bearer m-key");
  expect(body.data[0].embedding).toEqual(fakeVector("a b"));
  expect(JSON.stringify(body.service_metadata.warnings)).toContain("Mistral refuses user");
  const strict = await embed({ model: "mistral/embed", input: ["a b"], user: "u-1" }, { "x-service-strict": "true" });
  expect(strict.status).toBe(422);
  expect(fake.requests).toHaveLength(1);
  const ids = await embed({ model: "mistral/embed", input: [1, 2] });
  expect(((await ids.json()) as Json).error.message).toContain("embeds texts only");
});

test("ollama keeps the OpenAI call: no key sent, dimensions as OpenAI names them", async () => {
  const body = (await (await embed({ model: "ollama/embed", input: "x", dimensions: 3 })).json()) as Json;
  expect(fake.requests.map((r) => [r.path, r.body, r.headers.authorization])).toEqual([["/openai/v1/embeddings", { model: "embed-model", input: ["x"], encoding_format: "float", dimensions: 3 }, undefined]]);
  expect(body.data[0].embedding).toEqual(fakeVector("x"));
});
