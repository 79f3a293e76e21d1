/**
 * A workspace's settings at work on its requests (README "Workspaces"): budgets held like a key's limit (402 at the
 * exact boundary, never overspent under concurrency), allowed models and providers, disabled server tools, its plugin
 * defaults (with `locked`), its rate limit, and the retention sweeper. The default workspace is untouched by all of it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { ADMIN_KEY, startTestGateway, type TestGateway } from "../../support/gateway.ts";
import { startScriptedModel, type ScriptedModel } from "../../support/scripted-model.ts";

type Json = Record<string, any>;
let gw: TestGateway;
/** A gateway whose one model always answers broken JSON: response-healing's witness. */
let pgw: TestGateway;
let upstream: ScriptedModel;
let now = Date.parse("2026-03-10T12:00:00Z");

const BROKEN = "{answer: 'yes',}";
const HEALED = '{"answer":"yes"}';

beforeAll(async () => {
  upstream = startScriptedModel(() => ({ text: BROKEN }));
  gw = await startTestGateway({ overrides: { clock: { now: () => now } } });
  pgw = await startTestGateway({
    file: { providers: [{ id: "acme", adapter: "openai", base_url: upstream.baseUrl, api_key: "k", models: [{ id: "acme/json", upstream_model: "m", context_length: 1_024 }] }] },
  });
});
afterAll(async () => {
  await gw.close();
  await pgw.close();
  upstream.stop();
});

const admin = async (path: string, init: RequestInit & { json?: unknown } = {}, on = gw) => {
  const response = await on.request(path, { ...init, key: ADMIN_KEY });
  return { status: response.status, body: (await response.json()) as Json };
};

/** A new workspace with `settings`, and an inference key in it. */
async function workspace(slug: string, settings: Json = {}, on = gw): Promise<{ id: string; key: string }> {
  const made = await admin("/workspaces", { method: "POST", json: { name: slug, slug, settings } }, on);
  expect(made.status).toBe(201);
  const key = await admin("/keys", { method: "POST", json: { name: `${slug} key`, workspace_id: made.body.data.id } }, on);
  return { id: made.body.data.id, key: key.body.key };
}

// Worst case of one request (the limits test's arithmetic): 46 prompt bytes + 2 × 8 tokens at 1e-7 USD, plus 100
// output tokens at 4e-7 USD = 4.62e-5 USD.
const WORST = 4.62e-5;
const ask = (key: string, extra: Json = {}) =>
  gw.request("/chat/completions", { method: "POST", key, json: { model: "simulator/small", max_tokens: 100, messages: [{ role: "user", content: "count these words [sim tokens=100 latency=150]" }], ...extra } });

describe("budgets", () => {
  test("a budget just under one request's worst case refuses it (402); one that covers two lets exactly two of six through", async () => {
    const tight = await workspace("tight");
    await admin(`/workspaces/${tight.id}/budgets/daily`, { method: "PUT", json: { limit_usd: WORST * 0.999 } });
    const refused = await ask(tight.key);
    expect(refused.status).toBe(402);
    const envelope = (await refused.json()) as Json;
    expect(envelope.error.metadata).toMatchObject({ error_type: "payment_required", workspace_id: tight.id, budget_interval: "daily" });
    expect(envelope.error.message).toContain("workspace's budget");

    const two = await workspace("two");
    await admin(`/workspaces/${two.id}/budgets/monthly`, { method: "PUT", json: { limit_usd: 2 * WORST } });
    const replies = await Promise.all(Array.from({ length: 6 }, () => ask(two.key)));
    expect(replies.map((r) => r.status).sort()).toEqual([200, 200, 402, 402, 402, 402]);
    const spent = (await Promise.all(replies.filter((r) => r.status === 200).map(async (r) => ((await r.json()) as Json).usage.cost as number))).reduce((a, b) => a + b, 0);
    const budget = await admin(`/workspaces/${two.id}/budgets/monthly`);
    expect(budget.body.data.usage_usd).toBeCloseTo(spent, 12);
    expect(spent).toBeLessThanOrEqual(2 * WORST);
  });

  test("the window starts over: a daily budget spent today is whole again tomorrow, seeded from the store", async () => {
    const daily = await workspace("daily");
    await admin(`/workspaces/${daily.id}/budgets/daily`, { method: "PUT", json: { limit_usd: WORST * 1.5 } });
    expect((await ask(daily.key)).status).toBe(200);
    expect((await ask(daily.key)).status).toBe(402);
    await gw.gateway.deps.ledger.flush();
    now += 86_400_000;
    expect((await ask(daily.key)).status).toBe(200);
  });

  test("the default workspace, with no budget, is not limited", async () => {
    const replies = await Promise.all(Array.from({ length: 3 }, () => ask(gw.inferenceKey)));
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200]);
  });
});

describe("models, providers and tools", () => {
  test("allowed models: another model is blocked (403), an allowed one passes (the openai client)", async () => {
    const team = await workspace("models-only", { allowed_models: ["simulator/small"] });
    const client = new OpenAI({ apiKey: team.key, baseURL: gw.baseUrl, maxRetries: 0 });
    const ok = await client.chat.completions.create({ model: "simulator/small", messages: [{ role: "user", content: "hi" }] });
    expect(ok.choices[0]!.message.content).toBeTruthy();
    const error = (await client.chat.completions.create({ model: "simulator/large", messages: [{ role: "user", content: "hi" }] }).catch((e: unknown) => e)) as { status?: number; message?: string };
    expect(error.status).toBe(403);
    expect(error.message).toContain("simulator/large is not allowed");
  });

  test("allowed providers: a model no allowed provider serves is blocked", async () => {
    const team = await workspace("providers-only", { allowed_providers: ["elsewhere"] });
    const blocked = await ask(team.key);
    expect(blocked.status).toBe(403);
    expect(((await blocked.json()) as Json).error.message).toContain("no allowed provider serves simulator/small");
  });

  test("a disabled server tool is refused, naming the tool", async () => {
    const team = await workspace("no-datetime", {});
    await admin(`/workspaces/${team.id}`, { method: "PATCH", json: { disabled_server_tools: ["openrouter:datetime"] } });
    const refused = await ask(team.key, { tools: [{ type: "service:datetime" }] });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as Json).error.message).toContain("service:datetime is disabled for this workspace");
  });
});

describe("plugin defaults", () => {
  const chat = async (key: string, extra: Json = {}) => {
    const res = await pgw.request("/chat/completions", {
      method: "POST",
      key,
      headers: { "x-service-metadata": "enabled" },
      json: { model: "acme/json", messages: [{ role: "user", content: "yes?" }], response_format: { type: "json_object" }, ...extra },
    });
    const json = (await res.json()) as Json;
    return { content: json.choices?.[0]?.message.content as string | undefined, warnings: (json.service_metadata?.warnings ?? []) as Json[] };
  };

  test("a workspace's plugin entry turns a plugin on for its requests only; `locked` keeps its requests from turning it off", async () => {
    const healed = await workspace("healed", { plugins: [{ id: "response-healing", enabled: true }] }, pgw);
    expect((await chat(healed.key)).content).toBe(HEALED);
    expect((await chat(healed.key, { plugins: [{ id: "response-healing", enabled: false }] })).content).toBe(BROKEN);
    expect((await chat(pgw.inferenceKey)).content).toBe(BROKEN);

    const locked = await workspace("locked", { plugins: [{ id: "response-healing", enabled: true, locked: true }] }, pgw);
    const reply = await chat(locked.key, { plugins: [{ id: "response-healing", enabled: false }] });
    expect(reply.content).toBe(HEALED);
    expect(reply.warnings.map((w) => w.code)).toContain("plugin_locked");
  });

  test("an unknown plugin or a bad option is a 400 when the settings are written", async () => {
    const unknown = await admin("/workspaces", { method: "POST", json: { name: "bad", slug: "bad", settings: { plugins: [{ id: "nope" }] } } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toContain('plugin "nope"');
    const badSwitch = await admin("/workspaces", { method: "POST", json: { name: "bad", slug: "bad", settings: { plugins: [{ id: "response-healing", locked: "yes" }] } } });
    expect(badSwitch.status).toBe(400);
  });
});

describe("rate limit and retention", () => {
  test("the workspace's rate limit is shared by all its keys (429 with the rate-limit headers)", async () => {
    const team = await workspace("limited", { rate_limit: { requests: 2, interval_seconds: 60 } });
    const second = await admin("/keys", { method: "POST", json: { name: "second", workspace_id: team.id } });
    expect((await ask(team.key, { max_tokens: 5 })).status).toBe(200);
    expect((await ask(second.body.key, { max_tokens: 5 })).status).toBe(200);
    const refused = await ask(team.key, { max_tokens: 5 });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBeTruthy();
    expect(((await refused.json()) as Json).error.message).toContain("workspace");
    // Another workspace's keys are not affected.
    expect((await ask(gw.inferenceKey, { max_tokens: 5 })).status).toBe(200);
  });

  test("generation records older than the workspace keeps are deleted by the sweeper; others stay", async () => {
    const team = await workspace("short-memory", { generation_retention_days: 2 });
    const old = (await (await ask(team.key, { max_tokens: 5 })).json()) as Json;
    const home = (await (await ask(gw.inferenceKey, { max_tokens: 5 })).json()) as Json;
    await gw.gateway.deps.ledger.flush();
    now += 2 * 86_400_000 + 1;
    const fresh = (await (await ask(team.key, { max_tokens: 5 })).json()) as Json;
    await gw.gateway.deps.ledger.flush();
    expect(await gw.gateway.retention.sweep()).toBe(1);
    const read = (id: string, key: string) => gw.request(`/generation?id=${id}`, { key });
    expect((await read(old.id, team.key)).status).toBe(404);
    expect((await read(fresh.id, team.key)).status).toBe(200);
    expect((await read(home.id, gw.inferenceKey)).status).toBe(200);
  });
});
