/**
 * The whole gateway on Postgres + Redis, two instances sharing them (as two processes would): keys, usage and
 * revocation are one state. Runs when DATABASE_URL (postgres) and REDIS_URL are set, as in CI.
 */
import { describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { ADMIN_KEY, type TestGateway } from "../support/gateway.ts";
import { sharedStoresFor, twoNodes } from "../support/two-nodes.ts";

const enabled = sharedStoresFor("shared-services");

let a: TestGateway;
let b: TestGateway;

describe.skipIf(!enabled)("two gateways on one Postgres and one Redis", () => {
  twoNodes((x, y) => ([a, b] = [x, y]));

  test("a key created on one gateway works on the other, with usage shared", async () => {
    const client = new OpenAI({ baseURL: b.baseUrl, apiKey: a.inferenceKey, maxRetries: 0 });
    const reply = await client.chat.completions.create({ model: "simulator/small", messages: [{ role: "user", content: "across" }] });
    const cost = (reply.usage as unknown as { cost: number }).cost;
    expect(cost).toBeGreaterThan(0);
    await b.gateway.deps.ledger.flush();
    const me = (await (await a.request("/key", { key: a.inferenceKey })).json()) as { data: { usage: number } };
    expect(me.data.usage).toBeCloseTo(cost, 12);
    await a.gateway.deps.ledger.flush();
    const gen = await a.request(`/generation?id=${reply.id}`);
    expect(gen.status).toBe(200);
  });

  test("disabling a key on one gateway revokes it on the other at once", async () => {
    const created = (await (await a.request("/keys", { key: ADMIN_KEY, method: "POST", json: { name: "shared" } })).json()) as { key: string; data: { hash: string } };
    const chat = () => b.request("/chat/completions", { method: "POST", key: created.key, json: { model: "simulator/small", messages: [{ role: "user", content: "x" }] } });
    expect((await chat()).status).toBe(200); // now cached on b
    await a.request(`/keys/${created.data.hash}`, { key: ADMIN_KEY, method: "PATCH", json: { disabled: true } });
    let status = 0;
    for (let i = 0; i < 20 && status !== 401; i++) {
      status = (await chat()).status;
      if (status !== 401) await Bun.sleep(10);
    }
    expect(status).toBe(401);
  });
});
