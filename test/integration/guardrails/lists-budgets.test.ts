/**
 * Model and provider lists and budgets through HTTP: a model no allow-list admits (or one an
 * ignore-list names) is a 403 without stage detail, fallbacks outside the lists are dropped, several guardrails'
 * allow-lists intersect; provider lists steer routing; a budget (`limit_usd`) is held like a key's credit limit, so
 * concurrent requests never spend past it, and its spending is read back from the store by another process.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ADMIN_KEY, startTestGateway } from "../../support/gateway.ts";
import { MODEL, OTHER_MODEL, PRICING, guardrail, newKey, startGuardedGateway, type GuardedGateway } from "./setup.ts";

type Json = Record<string, any>;
const dir = mkdtempSync(join(tmpdir(), "gw-guardrail-budget-"));
const DATABASE_URL = `sqlite://${join(dir, "gateway.db")}`;
let g: GuardedGateway;
beforeAll(async () => void (g = await startGuardedGateway(() => ({ text: "ok" }), {}, { env: { DATABASE_URL } })));
afterAll(async () => {
  await g.close();
  rmSync(dir, { recursive: true, force: true });
});

const chat = (key: string, body: Json) =>
  g.gw.request("/chat/completions", { method: "POST", key, headers: { "x-service-metadata": "enabled" }, json: { messages: [{ role: "user", content: "hello" }], ...body } });

describe("model and provider lists", () => {
  test("a model outside the allow-list is a 403 naming the guardrail, with no pipeline entry; fallbacks outside it are dropped", async () => {
    const key = await newKey(g.gw);
    const id = await guardrail(g.gw, { name: "acme-only", allowed_models: [OTHER_MODEL] }, { keyHash: key.hash });
    const refused = await chat(key.key, { model: "simulator/small" });
    expect(refused.status).toBe(403);
    const body = (await refused.json()) as Json;
    expect(body.error).toMatchObject({ message: 'Request blocked by guardrail "acme-only": model simulator/small is not allowed', metadata: { guardrail_id: id, error_type: "permission_denied" } });
    expect(body.service_metadata.pipeline).toBeUndefined();
    const served = await chat(key.key, { model: MODEL, models: [OTHER_MODEL] });
    expect(served.status).toBe(200);
    const json = (await served.json()) as Json;
    expect(json.model).toBe(OTHER_MODEL);
    expect(json.service_metadata.warnings).toEqual([expect.objectContaining({ code: "dropped", field: "models" })]);
  });

  test("allow-lists of several guardrails intersect; ignore-lists add up (wildcards by author)", async () => {
    const key = await newKey(g.gw);
    await guardrail(g.gw, { name: "a", allowed_models: ["acme/*", "simulator/*"] }, { keyHash: key.hash });
    await guardrail(g.gw, { name: "b", allowed_models: ["acme/*"], ignored_models: [MODEL] }, { keyHash: key.hash });
    expect((await chat(key.key, { model: "simulator/small" })).status).toBe(403);
    expect((await chat(key.key, { model: MODEL })).status).toBe(403);
    expect((await chat(key.key, { model: OTHER_MODEL })).status).toBe(200);
  });

  test("provider lists steer routing; none left is a 403", async () => {
    const only = await newKey(g.gw);
    await guardrail(g.gw, { name: "backup-only", allowed_providers: ["backup"] }, { keyHash: only.hash });
    const res = await chat(only.key, { model: MODEL });
    expect(res.status).toBe(200);
    expect(((await res.json()) as Json).provider).toBe("backup");
    const ignore = await newKey(g.gw);
    await guardrail(g.gw, { name: "no-acme", ignored_providers: ["acme", "backup"] }, { keyHash: ignore.hash });
    const refused = await chat(ignore.key, { model: MODEL });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as Json).error.message).toBe('Request blocked by guardrail "no-acme": no allowed provider serves acme/chat');
  });
});

describe("zero data retention", () => {
  test("enforce_zdr_<family> sends that family's requests to ZDR endpoints only (none here: routing's 404 names provider.zdr)", async () => {
    const key = await newKey(g.gw);
    await guardrail(g.gw, { name: "zdr", enforce_zdr_other: true }, { keyHash: key.hash });
    const res = await chat(key.key, { model: MODEL });
    expect(res.status).toBe(404);
    expect(((await res.json()) as Json).error.metadata.availability).toMatchObject({ code: "constraint_filtered" });
    const free = await newKey(g.gw);
    await guardrail(g.gw, { name: "zdr-openai", enforce_zdr_openai: true }, { keyHash: free.hash });
    expect((await chat(free.key, { model: MODEL })).status).toBe(200);
  });
});

describe("budgets", () => {
  // 120 bytes of prompt bound the scripted upstream's fixed 100 prompt tokens, so a hold covers what it costs. One
  // endpoint: a hold is sized at the dearest endpoint of the model (MODEL's backup costs three times as much).
  const body = { model: OTHER_MODEL, max_tokens: 20, messages: [{ role: "user", content: "x ".repeat(60) }] };
  const COST = 100 * PRICING.prompt + 20 * PRICING.completion;
  const LIMIT = 0.001;

  test("concurrent requests never spend past a budget; the one that does not fit is a 403 naming it; another process reads the spending", async () => {
    const key = await newKey(g.gw);
    const id = await guardrail(g.gw, { name: "tight", limit_usd: LIMIT, reset_interval: "monthly" }, { keyHash: key.hash });
    const send = () => g.gw.request("/chat/completions", { method: "POST", key: key.key, json: body });
    const first = await Promise.all(Array.from({ length: 20 }, send));
    const refused = first.filter((r) => r.status === 403);
    expect(refused.length).toBeGreaterThan(0);
    expect(first.every((r) => r.status === 200 || r.status === 403)).toBe(true);
    const error = ((await refused[0]!.json()) as Json).error;
    expect(error).toMatchObject({ message: 'Request blocked by guardrail "tight": its budget of $0.001 per month cannot cover this request', metadata: { guardrail_id: id, limit_usd: LIMIT, reset_interval: "monthly" } });
    // Then one at a time until refused: spending ends within one request of the limit, never past it.
    for (let i = 0; i < 20 && (await send()).status === 200; i++);
    await Bun.sleep(20);
    const usage = ((await (await g.gw.request(`/guardrails/${id}`, { key: ADMIN_KEY })).json()) as Json).data.usage_usd as number;
    expect(usage).toBeLessThanOrEqual(LIMIT + 1e-12);
    // The last refusal came when what was left could not cover one worst case (a little more than one request).
    expect(usage).toBeGreaterThan(LIMIT - 3 * COST);
    // Written with the generations: a second gateway on the same database (a fresh kv) seeds the window from it.
    await g.gw.gateway.deps.ledger.flush();
    const second = await startTestGateway({ env: { DATABASE_URL } });
    try {
      const seen = ((await (await second.request(`/guardrails/${id}`, { key: ADMIN_KEY })).json()) as Json).data.usage_usd as number;
      expect(seen).toBeCloseTo(usage, 12);
    } finally {
      await second.close();
    }
  });

  test("a budget applies with a key that has its own limit too: each is held on its own", async () => {
    const key = await newKey(g.gw, { limit: 1 });
    await guardrail(g.gw, { name: "small", limit_usd: COST * 1.5 }, { keyHash: key.hash });
    const one = await g.gw.request("/chat/completions", { method: "POST", key: key.key, json: body });
    expect(one.status).toBe(200);
    const two = await g.gw.request("/chat/completions", { method: "POST", key: key.key, json: body });
    expect(two.status).toBe(403);
    const keyView = (await (await g.gw.request("/key", { key: key.key })).json()) as Json;
    expect(keyView.data.usage).toBeCloseTo(COST, 12);
  });
});
