/**
 * A gateway for the guardrails tests: its models are a scripted upstream (test/support/scripted-model.ts) under two
 * providers, plus the simulator; helpers create a guardrail and assign it through the management API.
 */
import { expect } from "bun:test";
import type { ConfigFile } from "../../../core/config/file-schema.ts";
import { ADMIN_KEY, startTestGateway, type TestGateway, type TestGatewayOptions } from "../../support/gateway.ts";
import { startScriptedModel, type Script, type ScriptedModel } from "../../support/scripted-model.ts";

export const MODEL = "acme/chat";
export const OTHER_MODEL = "acme/other";
export const PRICING = { prompt: 0.000001, completion: 0.000002 };

export interface GuardedGateway {
  gw: TestGateway;
  upstream: ScriptedModel;
  close(): Promise<void>;
}

export async function startGuardedGateway(script: Script, file: ConfigFile = {}, options: Omit<TestGatewayOptions, "file"> = {}): Promise<GuardedGateway> {
  const upstream = startScriptedModel(script);
  const models = [
    { id: MODEL, upstream_model: "m", pricing: PRICING, context_length: 100000 },
    { id: OTHER_MODEL, upstream_model: "o", pricing: PRICING, context_length: 100000 },
  ];
  const gw = await startTestGateway({
    ...options,
    file: {
      simulator: true,
      providers: [
        { id: "acme", adapter: "openai", base_url: upstream.baseUrl, api_key: "k", models },
        { id: "backup", adapter: "openai", base_url: upstream.baseUrl, api_key: "k", models: [{ ...models[0]!, pricing: { prompt: 0.000003, completion: 0.000006 } }] },
      ],
      ...file,
    },
  });
  return { gw, upstream, close: async () => (await gw.close(), upstream.stop()) };
}

type Json = Record<string, any>;

/** Creates a guardrail and assigns it to `keyHash` (or, with `workspace`, to the workspace); returns its id. */
export async function guardrail(gw: TestGateway, body: Json, to: { keyHash?: string; workspace?: boolean } = { keyHash: gw.inferenceKeyHash }): Promise<string> {
  const res = await gw.request("/guardrails", { method: "POST", key: ADMIN_KEY, json: { name: "test", ...body } });
  expect(res.status).toBe(201);
  const id = ((await res.json()) as Json).data.id as string;
  if (to.keyHash) {
    const assigned = await gw.request(`/guardrails/${id}/assignments/keys`, { method: "POST", key: ADMIN_KEY, json: { key_hashes: [to.keyHash] } });
    expect(assigned.status).toBe(200);
  }
  if (to.workspace) expect((await gw.request(`/guardrails/${id}/assignments/workspace`, { method: "POST", key: ADMIN_KEY })).status).toBe(200);
  return id;
}

export async function removeGuardrail(gw: TestGateway, id: string): Promise<void> {
  expect((await gw.request(`/guardrails/${id}`, { method: "DELETE", key: ADMIN_KEY })).status).toBe(200);
}

/** A new inference key of the default workspace: its hash and secret. */
export async function newKey(gw: TestGateway, body: Json = {}): Promise<{ key: string; hash: string }> {
  const res = await gw.request("/keys", { method: "POST", key: ADMIN_KEY, json: { name: "guarded", ...body } });
  const json = (await res.json()) as { key: string; data: { hash: string } };
  return { key: json.key, hash: json.data.hash };
}

/** The user text of every request the upstream received. */
export function userTexts(upstream: ScriptedModel): string[] {
  return upstream.bodies.map((b) => (b.messages as Array<{ role: string; content: unknown }>).filter((m) => m.role === "user").map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content))).join("\n"));
}
