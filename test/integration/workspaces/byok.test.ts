/**
 * Bring your own keys through HTTP (README "Bring your own keys"), with the official SDK's `byok.*` and the `openai`
 * client: a workspace's provider key (or one key's) is what reaches that provider for its requests, and only that
 * provider; `is_byok` in service_metadata and the generation; the fee is what the request pays; a refused credential
 * fails only its workspace (or falls back to the operator's key when the entry allows it); the key is absent from
 * answers, logs, error bodies and the database in clear; without GATEWAY_SECRET_KEY storing one is refused.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import pino from "pino";
import { ADMIN_KEY, startTestGateway, type TestGateway } from "../../support/gateway.ts";
import { sdkClient } from "../../support/openrouter-sdk.ts";
import { startScriptedModel, type ScriptedModel } from "../../support/scripted-model.ts";

type Json = Record<string, any>;
const SECRET_KEY = "0123456789abcdef".repeat(4);
const TEAM_SECRET = "sk-team-provider-secret-7Q2w";
const KEY_SECRET = "sk-one-key-provider-secret-9Zx1";
const BAD_SECRET = "sk-revoked-provider-secret-0000";
const PRICE = { prompt: 1e-6, completion: 2e-6 };

let gw: TestGateway;
let upstream: ScriptedModel;
let other: ScriptedModel;
const logs: string[] = [];
let team: { id: string; key: string; hash: string };

const admin = async (path: string, init: RequestInit & { json?: unknown } = {}, on = gw) => {
  const response = await on.request(path, { ...init, key: ADMIN_KEY });
  return { status: response.status, body: (await response.json()) as Json };
};

beforeAll(async () => {
  upstream = startScriptedModel((_body, _i, headers) => (headers.get("authorization") === `Bearer ${BAD_SECRET}` ? { status: 401, message: "invalid api key" } : { text: "hello" }));
  other = startScriptedModel(() => ({ text: "other" }));
  gw = await startTestGateway({
    env: { GATEWAY_SECRET_KEY: SECRET_KEY },
    file: {
      limits: { byok_fee_percent: 10 },
      providers: [
        { id: "openai", adapter: "openai", base_url: upstream.baseUrl, api_key: "operator-acme-key", models: [{ id: "acme/m", upstream_model: "m", pricing: PRICE }] },
        { id: "groq", adapter: "openai", base_url: other.baseUrl, api_key: "operator-beta-key", models: [{ id: "beta/m", upstream_model: "m", pricing: PRICE }] },
      ],
    },
    overrides: { logger: pino({ level: "trace" }, { write: (line: string) => void logs.push(line) }) },
  });
  const ws = await admin("/workspaces", { method: "POST", json: { name: "Team", slug: "team" } });
  const key = await admin("/keys", { method: "POST", json: { name: "team key", workspace_id: ws.body.data.id } });
  team = { id: ws.body.data.id, key: key.body.key, hash: key.body.data.hash };
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
  other.stop();
});

const chat = (key: string, model = "acme/m") =>
  gw.request("/chat/completions", { method: "POST", key, headers: { "x-service-metadata": "enabled" }, json: { model, messages: [{ role: "user", content: "hi" }] } });

describe("BYOK", () => {
  let credentialId: string;

  test("the SDK's byok.create stores a workspace's key; every answer shows only its last four characters", async () => {
    const sdk = sdkClient(gw, ADMIN_KEY).sdk;
    const created = await sdk.byok.create({ createBYOKKeyRequest: { provider: "openai", key: TEAM_SECRET, name: "team acme", workspaceId: team.id } });
    expect(created.data).toMatchObject({ provider: "openai", name: "team acme", label: "…7Q2w", workspaceId: team.id, isByokOnly: true, disabled: false, allowedApiKeyHashes: null });
    credentialId = created.data.id;
    expect((await sdk.byok.list({ workspaceId: team.id })).result.data.map((c) => c.id)).toEqual([credentialId]);
    const got = await admin(`/byok/${credentialId}?workspace_id=${team.id}`);
    expect(JSON.stringify(got.body)).not.toContain(TEAM_SECRET.slice(0, -4));
    // Another workspace's credential reads as missing.
    expect((await admin(`/byok/${credentialId}`)).status).toBe(404);
  });

  test("the workspace's requests reach the provider with its key (the openai client), others with the operator's", async () => {
    const before = upstream.authorizations.length;
    const client = new OpenAI({ apiKey: team.key, baseURL: gw.baseUrl, maxRetries: 0 });
    const reply = await client.chat.completions.create({ model: "acme/m", messages: [{ role: "user", content: "hi" }] });
    expect(reply.choices[0]!.message.content).toBe("hello");
    expect(upstream.authorizations[before]).toBe(`Bearer ${TEAM_SECRET}`);
    const home = await chat(gw.inferenceKey);
    expect(home.status).toBe(200);
    expect(upstream.authorizations.at(-1)).toBe("Bearer operator-acme-key");
    // Another provider never gets the workspace's acme key.
    expect((await chat(team.key, "beta/m")).status).toBe(200);
    expect(other.authorizations.at(-1)).toBe("Bearer operator-beta-key");
  });

  test("is_byok in service_metadata and the generation; the request pays the fee, the list price is byok usage", async () => {
    const res = await chat(team.key);
    const body = (await res.json()) as Json;
    expect(body.service_metadata.is_byok).toBe(true);
    // 100 prompt and 20 completion tokens at list price: 1.4e-4 USD; the fee is 10 % of it.
    expect(body.usage.cost).toBeCloseTo(1.4e-5, 12);
    await gw.gateway.deps.ledger.flush();
    const generation = await gw.request(`/generation?id=${body.id}`, { key: team.key });
    const data = ((await generation.json()) as Json).data;
    expect(data).toMatchObject({ is_byok: true });
    expect(data.total_cost).toBeCloseTo(1.4e-5, 12);
    expect(data.upstream_inference_cost).toBeCloseTo(1.4e-4, 12);
    // The key's byok_usage counts the list price of its two BYOK requests so far (the SDK reads it).
    const { data: me } = await sdkClient(gw, team.key).sdk.apiKeys.getCurrentKeyMetadata();
    expect(me.byokUsage).toBeCloseTo(2 * 1.4e-4, 12);
    expect(me.byokUsageDaily).toBeCloseTo(2 * 1.4e-4, 12);
    // Its usage: the fees, and the one request on groq, paid with the operator's key at list price.
    expect(me.usage).toBeCloseTo(2 * 1.4e-5 + 1.4e-4, 12);
    const home = (await (await chat(gw.inferenceKey)).json()) as Json;
    expect(home.service_metadata.is_byok).toBe(false);
    expect(home.usage.cost).toBeCloseTo(1.4e-4, 12);
  });

  test("a key's own credential wins over its workspace's, for that key only", async () => {
    const second = await admin("/keys", { method: "POST", json: { name: "second", workspace_id: team.id } });
    const made = await admin("/byok", { method: "POST", json: { provider: "openai", api_key: KEY_SECRET, key_hash: second.body.data.hash, workspace_id: team.id } });
    expect(made.status).toBe(201);
    expect(made.body.data.allowed_api_key_hashes).toEqual([second.body.data.hash]);
    await chat(second.body.key);
    expect(upstream.authorizations.at(-1)).toBe(`Bearer ${KEY_SECRET}`);
    await chat(team.key);
    expect(upstream.authorizations.at(-1)).toBe(`Bearer ${TEAM_SECRET}`);
  });

  test("a credential the provider refuses fails that workspace alone, with a clear error; with is_byok_only false the operator's key answers", async () => {
    const ws = await admin("/workspaces", { method: "POST", json: { name: "Revoked", slug: "revoked" } });
    const key = (await admin("/keys", { method: "POST", json: { name: "k", workspace_id: ws.body.data.id } })).body.key as string;
    const made = await admin("/byok", { method: "POST", json: { provider: "openai", api_key: BAD_SECRET, workspace_id: ws.body.data.id } });
    for (let i = 0; i < 4; i++) {
      const refused = await chat(key);
      expect(refused.status).toBe(403);
      const text = await refused.text();
      expect(text).toContain("refused this workspace's own provider key");
      expect(text).not.toContain(BAD_SECRET);
    }
    // No breaker opened: the other workspaces' requests to the same provider still pass.
    expect((await chat(gw.inferenceKey)).status).toBe(200);
    expect((await chat(team.key)).status).toBe(200);

    await admin(`/byok/${made.body.data.id}?workspace_id=${ws.body.data.id}`, { method: "PATCH", json: { is_byok_only: false } });
    const fallback = await chat(key);
    expect(fallback.status).toBe(200);
    expect(((await fallback.json()) as Json).service_metadata.is_byok).toBe(false);
    expect(upstream.authorizations.slice(-2)).toEqual([`Bearer ${BAD_SECRET}`, "Bearer operator-acme-key"]);
  });

  test("the key is never in clear in the database, the logs or a reply", async () => {
    await gw.gateway.deps.ledger.flush();
    const stored = await gw.gateway.deps.store.byok.all(team.id);
    expect(stored.length).toBe(2);
    for (const record of stored) {
      expect(record.secret.startsWith("v1.")).toBe(true);
      expect(record.secret).not.toContain(TEAM_SECRET);
      expect(record.secret).not.toContain(KEY_SECRET);
    }
    const all = logs.join("\n");
    expect(all.length).toBeGreaterThan(0);
    for (const secret of [TEAM_SECRET, KEY_SECRET, BAD_SECRET, SECRET_KEY]) expect(all).not.toContain(secret);
  });

  test("an unknown provider is a 400; deleting a credential puts the operator's key back", async () => {
    expect((await admin("/byok", { method: "POST", json: { provider: "nobody", api_key: "sk-whatever-123", workspace_id: team.id } })).status).toBe(400);
    const sdk = sdkClient(gw, ADMIN_KEY).sdk;
    const list = await sdk.byok.list({ workspaceId: team.id });
    for (const credential of list.result.data) expect((await admin(`/byok/${credential.id}?workspace_id=${team.id}`, { method: "DELETE" })).body).toEqual({ deleted: true });
    await chat(team.key);
    expect(upstream.authorizations.at(-1)).toBe("Bearer operator-acme-key");
  });
});

describe("without GATEWAY_SECRET_KEY", () => {
  test("the gateway starts, and storing a provider key is refused naming the variable", async () => {
    const bare = await startTestGateway();
    try {
      const refused = await admin("/byok", { method: "POST", json: { provider: "simulator", api_key: "sk-anything-1234" } }, bare);
      expect(refused.status).toBe(400);
      expect(refused.body.error.message).toContain("GATEWAY_SECRET_KEY");
    } finally {
      await bare.close();
    }
  });
});
