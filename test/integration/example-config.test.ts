/** The README's example config file loads as documented: validated, its extension found relative to the file. */
import { expect, test } from "bun:test";
import { resolve } from "node:path";
import { buildRegistry } from "../../core/bootstrap.ts";
import { loadConfig } from "../../core/config/load.ts";
import { buildCatalog } from "../../core/routing/catalog.ts";

const file = resolve(import.meta.dir, "../../examples/gateway.config.json");

test("examples/gateway.config.json validates, resolves its secret from the env and loads its extension", async () => {
  const config = await loadConfig({ GATEWAY_CONFIG: file, LOCAL_UPSTREAM_KEY: "sk-local" });
  expect(config.providers.map((p) => p.id)).toEqual(["simulator", "local-openai-compatible"]);
  expect(config.providers[1]!.apiKey).toBe("sk-local");
  expect(config.providers[1]!.models[0]!.pricing.prompt).toBe(0.0000005);
  const registry = await buildRegistry(config);
  expect(registry.plugin("shout")).toBeDefined();
  expect(registry.tool("service:word_count")).toBeDefined();
  expect(config.tools.web_search).toMatchObject({ engine: "searxng", base_url: "http://127.0.0.1:8888" });
  expect(config.network.allowPrivate).toEqual(["127.0.0.1/32"]);
  expect(buildCatalog(config.providers, registry).get("local/sim-chat")?.endpoints.length).toBe(1);
});

test("without the secret's environment variable it stops naming the field", async () => {
  await expect(loadConfig({ GATEWAY_CONFIG: file })).rejects.toThrow('"providers[0].api_key": environment variable LOCAL_UPSTREAM_KEY is not set');
});
