/**
 * Workspaces on two gateways sharing one Postgres and one Redis (README "Workspaces"): a workspace budget is never
 * overspent across nodes, a workspace made on one node is usable on the other, its settings changed on one apply on
 * the other at once, and deleting it on one stops its keys on both. Runs when DATABASE_URL (postgres) and REDIS_URL
 * are set; workspaces are made per run, so kv state of other runs sharing the Redis never interferes.
 */
import { describe, expect, test } from "bun:test";
import { ADMIN_KEY, type TestGateway } from "../../support/gateway.ts";
import { sharedStoresFor, twoNodes } from "../../support/two-nodes.ts";

type Json = Record<string, any>;

const enabled = sharedStoresFor("workspaces multi-node");

let a: TestGateway;
let b: TestGateway;

describe.skipIf(!enabled)("workspaces on two gateways, one Postgres and one Redis", () => {
  twoNodes((x, y) => ([a, b] = [x, y]));

  const admin = async (gw: TestGateway, path: string, init: RequestInit & { json?: unknown } = {}) => {
    const response = await gw.request(path, { ...init, key: ADMIN_KEY });
    return { status: response.status, body: (await response.json()) as Json };
  };
  const chat = (gw: TestGateway, key: string, content = "count these words [sim tokens=100 latency=200]") =>
    gw.request("/chat/completions", { method: "POST", key, json: { model: "simulator/small", max_tokens: 100, messages: [{ role: "user", content }] } });

  test("a workspace budget holds across both: 30 parallel requests over two gateways, exactly the 5 that fit pass", async () => {
    const slug = `budget-${crypto.randomUUID().slice(0, 8)}`;
    const ws = await admin(a, "/workspaces", { method: "POST", json: { name: slug, slug } });
    // Two keys, one used on each node: the budget is the workspace's, not a key's.
    const k1 = (await admin(a, "/keys", { method: "POST", json: { name: "one", workspace_id: ws.body.data.id } })).body.key as string;
    const k2 = (await admin(b, "/keys", { method: "POST", json: { name: "two", workspace_id: ws.body.data.id } })).body.key as string;
    // Per request at worst: 46 prompt bytes + 16 tokens of overhead at 1e-7, 100 output tokens at 4e-7.
    const limit = 5 * 4.62e-5;
    expect((await admin(b, `/workspaces/${slug}/budgets/monthly`, { method: "PUT", json: { limit_usd: limit } })).status).toBe(200);
    const replies = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? chat(a, k1) : chat(b, k2))));
    expect(replies.filter((r) => r.status === 200)).toHaveLength(5);
    expect(replies.filter((r) => r.status === 402)).toHaveLength(25);
    const charged = (await Promise.all(replies.filter((r) => r.status === 200).map(async (r) => ((await r.json()) as Json).usage.cost as number))).reduce((x, y) => x + y, 0);
    expect(charged).toBeLessThanOrEqual(limit);
    for (const gw of [a, b]) {
      const seen = await admin(gw, `/workspaces/${slug}/budgets/monthly`);
      expect(seen.body.data.usage_usd).toBeCloseTo(charged, 12);
    }
  });

  test("settings changed on one node apply on the other at once; deleting the workspace stops its keys on both", async () => {
    const slug = `settings-${crypto.randomUUID().slice(0, 8)}`;
    const ws = await admin(a, "/workspaces", { method: "POST", json: { name: slug, slug } });
    const key = (await admin(a, "/keys", { method: "POST", json: { name: "k", workspace_id: ws.body.data.id } })).body.key as string;
    expect((await chat(b, key, "hi")).status).toBe(200);
    await admin(a, `/workspaces/${slug}`, { method: "PATCH", json: { settings: { allowed_models: ["simulator/large"] } } });
    expect((await chat(b, key, "hi")).status).toBe(403);
    await admin(a, `/workspaces/${slug}?with_keys=true`, { method: "DELETE" });
    expect((await chat(b, key, "hi")).status).toBe(401);
    expect((await chat(a, key, "hi")).status).toBe(401);
  });
});
