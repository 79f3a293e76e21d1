/**
 * One gateway with one provider per upstream adapter, all pointing at ONE fake upstream, for the conformance suite.
 * Model ids are `conf/<adapter>`; every model has the same pricing so costs can be checked exactly.
 */
import { ConfigFileSchema, type ConfigFile } from "../../../core/config/file-schema.ts";
import { REGION, STATIC_KEY } from "../../support/fake-bedrock/identities.ts";
import { ADAPTERS, VERTEX_LOCATION, VERTEX_PROJECT, WIRE, type AdapterId, type ExpectedUsage } from "../../support/fake-upstream/fixtures.ts";
import { startFakeUpstream, type FakeUpstream } from "../../support/fake-upstream/server.ts";
import { startTestGateway, type TestGateway } from "../../support/gateway.ts";

/** USD per token. */
export const PRICING = { prompt: 0.000003, completion: 0.000015, cache_read: 0.0000003, cache_write: 0.00000375 };

export const MODEL: Record<AdapterId, string> = {
  openai: "conf/openai",
  "openai-responses": "conf/openai-responses",
  anthropic: "conf/anthropic",
  gemini: "conf/gemini",
  bedrock: "conf/bedrock",
  azure: "conf/azure",
  "azure-responses": "conf/azure-responses",
  vertex: "conf/vertex",
  "vertex-anthropic": "conf/vertex-anthropic",
};

/** Provider id per adapter (what `provider` / `service_metadata` name). */
export const PROVIDER: Record<AdapterId, string> = {
  openai: "up-openai",
  "openai-responses": "up-openai-responses",
  anthropic: "up-anthropic",
  gemini: "up-gemini",
  bedrock: "up-bedrock",
  azure: "up-azure",
  "azure-responses": "up-azure-responses",
  vertex: "up-vertex",
  "vertex-anthropic": "up-vertex-anthropic",
};

/** The API key the gateway holds for each upstream (asserted on the recorded request headers); Bedrock's access key id. */
export const UPSTREAM_KEY: Record<AdapterId, string> = {
  openai: "sk-fake-openai",
  "openai-responses": "sk-fake-responses",
  anthropic: "sk-ant-fake",
  gemini: "AIza-fake-gemini",
  bedrock: STATIC_KEY.accessKeyId,
  azure: "az-fake-key-azure",
  "azure-responses": "az-fake-key-responses",
  // Vertex: a fixed OAuth access token (the service-account grant is tested against the fake Vertex endpoint).
  vertex: "ya29.conformance-vertex",
  "vertex-anthropic": "ya29.conformance-vertex-claude",
};

/** Where each adapter's upstream root is on the fake, and the provider fields beyond the key. */
const UPSTREAM_ROOT: Partial<Record<AdapterId, { path: string; fields?: Record<string, unknown> }>> = {
  gemini: { path: "/v1beta" },
  // Azure OpenAI: chat on the v1 API; Responses in the deployments style.
  azure: { path: "/openai/v1" },
  "azure-responses": { path: "/openai", fields: { api: "responses", api_version: "2025-04-01-preview" } },
};

export interface Conformance {
  gw: TestGateway;
  fake: FakeUpstream;
  close(): Promise<void>;
}

/** The provider list: one provider per adapter, each with one model. */
export function providersFor(fake: FakeUpstream): NonNullable<ConfigFile["providers"]> {
  return ADAPTERS.map((adapter) => ({
    id: PROVIDER[adapter],
    adapter: adapter === "azure-responses" ? "azure" : adapter === "vertex-anthropic" ? "vertex" : adapter,
    ...credentialsOf(adapter, fake),
    models: [{ id: MODEL[adapter], upstream_model: WIRE[adapter].upstreamModel, pricing: PRICING, context_length: 200000 }],
  }));
}

/** Where each provider entry points and how it authenticates (a cloud entry its own way). */
function credentialsOf(adapter: AdapterId, fake: FakeUpstream): Partial<NonNullable<ConfigFile["providers"]>[number]> {
  switch (adapter) {
    case "bedrock":
      return { base_url: fake.origin, region: REGION, credentials: { access_key_id: STATIC_KEY.accessKeyId, secret_access_key: STATIC_KEY.secretAccessKey } };
    case "vertex":
    case "vertex-anthropic":
      return { base_url: fake.origin, project: VERTEX_PROJECT, location: VERTEX_LOCATION, credentials: { access_token: UPSTREAM_KEY[adapter] } };
    default:
      return { base_url: fake.origin + (UPSTREAM_ROOT[adapter]?.path ?? "/v1"), ...UPSTREAM_ROOT[adapter]?.fields, api_key: UPSTREAM_KEY[adapter] };
  }
}

/**
 * Each cell scripts exactly one upstream reply per attempt, so the routing layer's own resilience is switched off:
 * no same-endpoint retries and a breaker that never opens (otherwise the failure cells would open it and later cells
 * would silently skip the endpoint). Fallback order across models is unaffected. Applied when this gateway's config
 * has the `routing` section.
 */
const DETERMINISTIC_ROUTING = { max_retries: 0, breaker: { failure_threshold: 1_000_000 } };

export async function startConformance(server?: ConfigFile["server"]): Promise<Conformance> {
  const fake = await startFakeUpstream();
  const file: ConfigFile = { providers: providersFor(fake) };
  if (server) file.server = server;
  if ("routing" in ConfigFileSchema.properties) Object.assign(file, { routing: DETERMINISTIC_ROUTING });
  const gw = await startTestGateway({ file });
  return {
    gw,
    fake,
    async close() {
      await gw.close();
      await fake.stop();
    },
  };
}

/** What the gateway must charge for `usage` with PRICING (spec "Usage object" `cost`). */
export function expectedCost(usage: ExpectedUsage): number {
  const plain = usage.input - usage.cacheRead - usage.cacheWrite;
  const total = plain * PRICING.prompt + usage.cacheRead * PRICING.cache_read + usage.cacheWrite * PRICING.cache_write + usage.output * PRICING.completion;
  return Math.round(total * 1e12) / 1e12;
}
