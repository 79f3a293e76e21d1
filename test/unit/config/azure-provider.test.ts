/** core/config/azure-provider.ts through core/config/load.ts: the Azure OpenAI fields of a provider entry. */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { buildRegistry } from "../../../core/bootstrap.ts";
import type { ConfigFile } from "../../../core/config/file-schema.ts";
import { buildConfig, ConfigError, validateConfigFile } from "../../../core/config/load.ts";
import { buildCatalog } from "../../../core/routing/catalog.ts";

type Provider = NonNullable<ConfigFile["providers"]>[number];

const azure = (fields: Partial<Provider>): Provider => ({
  id: "az",
  adapter: "azure",
  base_url: "https://my-resource.openai.azure.com/openai/v1",
  models: [{ id: "az/gpt", upstream_model: "my-deployment" }],
  ...fields,
});

const build = (provider: Provider, env: Record<string, string> = {}) => buildConfig(validateConfigFile({ providers: [provider] }), env, "/cfg").providers[0]!;

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error("expected a ConfigError");
}

describe("azure provider entries", () => {
  test("v1 style with an api key from the environment; region kept for the listings", () => {
    const provider = build(azure({ api_key: { env: "AZURE_OPENAI_API_KEY" }, region: "eastus2" }), { AZURE_OPENAI_API_KEY: "az-key-1" });
    expect(provider.apiKey).toBe("az-key-1");
    expect(provider.region).toBe("eastus2");
    expect(provider.options).toEqual({});
  });

  test("deployments style with api_version, the Responses API and Entra credentials: the secret read from the environment", () => {
    const provider = build(
      azure({
        base_url: "https://my-resource.openai.azure.com/openai",
        api_version: "2025-04-01-preview",
        api: "responses",
        entra: { tenant_id: "contoso.onmicrosoft.com", client_id: "app-id", client_secret: { env: "AZURE_CLIENT_SECRET" }, token_url: "http://127.0.0.1:9/token" },
      }),
      { AZURE_CLIENT_SECRET: "entra-secret-1" },
    );
    expect(provider.apiKey).toBeUndefined();
    expect(provider.options).toEqual({
      api_version: "2025-04-01-preview",
      api: "responses",
      entra: { tenant_id: "contoso.onmicrosoft.com", client_id: "app-id", client_secret: "entra-secret-1", token_url: "http://127.0.0.1:9/token" },
    });
  });

  test("the adapter's own options stay beside the Azure fields", () => {
    const provider = build(azure({ api_key: "k", api: "chat", options: { max_tokens_field: "max_tokens" } }));
    expect(provider.options).toEqual({ max_tokens_field: "max_tokens", api: "chat" });
  });

  test("credentials: none, both, or a secret whose variable is unset stop start-up naming the field", () => {
    expect(refusal(() => build(azure({})))).toBe('invalid config field "providers[0].api_key": the "azure" adapter needs api_key or entra');
    const entra = { tenant_id: "t", client_id: "c", client_secret: "s" };
    expect(refusal(() => build(azure({ api_key: "k", entra })))).toBe('invalid config field "providers[0].entra": give api_key or entra, not both');
    expect(refusal(() => build(azure({ entra: { ...entra, client_secret: { env: "UNSET_SECRET" } } })))).toBe(
      'invalid config field "providers[0].entra.client_secret": environment variable UNSET_SECRET is not set',
    );
  });

  test("a base URL of the other style than api_version says is refused, naming the field to fix", () => {
    expect(refusal(() => build(azure({ api_key: "k", api_version: "2024-10-21" })))).toContain('"providers[0].base_url": with api_version it is the deployments-style root');
    expect(refusal(() => build(azure({ api_key: "k", base_url: "https://r.openai.azure.com/openai/" })))).toContain('"providers[0].api_version": required with a deployments-style base_url');
  });

  test("the Azure fields on another adapter are refused; region is for any adapter", () => {
    const openai = { id: "o", adapter: "openai", base_url: "https://api.example.com/v1", api_key: "k", models: [{ id: "o/m" }] };
    expect(refusal(() => build({ ...openai, api_version: "2024-10-21" }))).toBe('invalid config field "providers[0].api_version": only the "azure" adapter takes it');
    expect(build({ ...openai, region: "eu-west-1" }).region).toBe("eu-west-1");
  });

  test("the file schema checks the shapes: api is chat or responses, entra has its three fields", () => {
    expect(refusal(() => validateConfigFile({ providers: [azure({ api_key: "k", api: "completions" as never })] }))).toContain("providers.0.api");
    expect(refusal(() => validateConfigFile({ providers: [azure({ entra: { tenant_id: "t", client_id: "c" } as never })] }))).toContain("providers.0.entra");
  });
});

test("the README's Azure OpenAI example loads as written: both providers, their options accepted by the adapter", async () => {
  const readme = readFileSync(resolve(import.meta.dir, "../../../README.md"), "utf8");
  const section = readme.slice(readme.indexOf("### Azure OpenAI"));
  const json = /```json\n([\s\S]*?)\n```/.exec(section)![1]!;
  const config = buildConfig(validateConfigFile(JSON.parse(json)), { AZURE_OPENAI_API_KEY: "k", AZURE_CLIENT_SECRET: "s" }, "/cfg");
  expect(config.providers.map((p) => [p.id, p.region])).toEqual([
    ["az", "eastus2"],
    ["az-entra", "swedencentral"],
  ]);
  const catalog = buildCatalog(config.providers, await buildRegistry(config));
  expect(catalog.get("az/gpt-5")?.endpoints[0]?.target.options).toMatchObject({ api: "responses", api_version: "2025-04-01-preview", entra: { client_secret: "s" } });
});
