/** A gateway whose one model is the counting upstream, and what the tests read back: generations and key usage. */
import type { ConfigFile } from "../../../core/config/file-schema.ts";
import { startTestGateway, type TestGateway, type TestGatewayOptions } from "../../support/gateway.ts";

export const MODEL = "acme/idem";
/** USD per token. */
export const PRICING = { prompt: 0.000001, completion: 0.000002 };

export function gatewayFile(baseUrl: string): ConfigFile {
  return {
    providers: [{ id: "acme", adapter: "openai", base_url: baseUrl, api_key: "k", models: [{ id: MODEL, upstream_model: "m", pricing: PRICING, context_length: 100000 }] }],
    routing: { max_retries: 0 },
  };
}

export function startIdempotencyGateway(baseUrl: string, options: Omit<TestGatewayOptions, "file"> = {}): Promise<TestGateway> {
  return startTestGateway({ ...options, file: gatewayFile(baseUrl) });
}

/** Generations billed to the gateway's inference key (after the ledger wrote them). */
export async function billedGenerations(gw: TestGateway): Promise<number> {
  await gw.gateway.deps.ledger.flush();
  const rows = await gw.gateway.deps.store.generations.list(gw.gateway.defaultWorkspaceId, { limit: 100, keyHash: gw.inferenceKeyHash });
  return rows.length;
}

/** USD the key was charged (`GET /key`). */
export async function keyUsage(gw: TestGateway, key = gw.inferenceKey): Promise<number> {
  await gw.gateway.deps.ledger.flush();
  const me = (await (await gw.request("/key", { key })).json()) as { data: { usage: number } };
  return me.data.usage;
}
