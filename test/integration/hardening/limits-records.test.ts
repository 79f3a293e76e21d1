/**
 * Every answer has a generation record, including the limits stage's own refusals —
 * a 429 of the key's rate limit and a 402 of its credit limit — found by the reply's X-Generation-Id.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ADMIN_KEY, startTestGateway, type TestGateway } from "../../support/gateway.ts";

type Json = Record<string, any>;

let gw: TestGateway;

beforeAll(async () => void (gw = await startTestGateway()));
afterAll(() => gw.close());

async function keyWith(settings: Json): Promise<string> {
  const res = await gw.request("/keys", { key: ADMIN_KEY, method: "POST", json: { name: "limited", ...settings } });
  return ((await res.json()) as { key: string }).key;
}

const ask = (key: string) => gw.request("/chat/completions", { key, method: "POST", json: { model: "simulator/small", messages: [{ role: "user", content: "hi" }] } });

async function recordOf(res: Response, key: string): Promise<Json> {
  const id = res.headers.get("x-generation-id");
  expect(id).toBeTruthy();
  const found = await gw.request(`/generation?id=${id}`, { key });
  expect(found.status).toBe(200);
  return ((await found.json()) as { data: Json }).data;
}

describe("the limits stage's answers are recorded", () => {
  test("429 of a key's rate limit", async () => {
    const key = await keyWith({ rate_limit: { requests: 1, interval_seconds: 60 } });
    expect((await ask(key)).status).toBe(200);
    const refused = await ask(key);
    expect(refused.status).toBe(429);
    expect(await recordOf(refused, key)).toMatchObject({ status: 429, error_type: "rate_limit_exceeded", total_cost: 0, tokens_completion: 0 });
  });

  test("402 of a key's credit limit", async () => {
    const key = await keyWith({ limit: 0 });
    const refused = await ask(key);
    expect(refused.status).toBe(402);
    expect(await recordOf(refused, key)).toMatchObject({ status: 402, error_type: "payment_required", total_cost: 0 });
  });
});
