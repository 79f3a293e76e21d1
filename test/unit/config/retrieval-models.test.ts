/** The README's "Embeddings and rerank" config example loads as written, and its models are what it says. */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { buildRegistry } from "../../../core/bootstrap.ts";
import { buildConfig, validateConfigFile } from "../../../core/config/load.ts";
import { taskOfCatalogModel } from "../../../core/retrieval/model-task.ts";
import { buildCatalog } from "../../../core/routing/catalog.ts";

test("the README's embeddings and rerank example: an embedding model split at 2,048, a rerank model on the cohere adapter", async () => {
  const readme = readFileSync(resolve(import.meta.dir, "../../../README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## Embeddings and rerank"));
  const json = /```json\n([\s\S]*?)\n```/.exec(section)![1]!;
  const config = buildConfig(validateConfigFile(JSON.parse(json)), { OPENAI_API_KEY: "k", COHERE_API_KEY: "c", VERTEX_ACCESS_TOKEN: "ya29.t" }, "/cfg");
  expect(config.embeddings).toEqual({ maxInputs: 2048, maxInputTokens: 8192 });
  const catalog = buildCatalog(config.providers, await buildRegistry(config));
  const embed = catalog.get("openai/text-embedding-3-small")!;
  expect([taskOfCatalogModel(embed), embed.endpoints[0]!.model.maxBatchSize]).toEqual(["embeddings", 2048]);
  const rerank = catalog.get("cohere/rerank-v3.5")!;
  expect([taskOfCatalogModel(rerank), rerank.endpoints[0]!.target.baseUrl]).toEqual(["rerank", "https://api.cohere.com/v2"]);
});
