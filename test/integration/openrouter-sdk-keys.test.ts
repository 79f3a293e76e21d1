/**
 * `apiKeys.*` and `generations.getGeneration` of the official OpenRouter SDK against the gateway, with true values:
 * the usage periods are the key's spending in the current UTC day, week (from Monday) and month, from the same
 * ledger as `usage` (read before and after the ledger flushes); `include_byok_in_limit` round-trips; `rate_limit`
 * is the limit the key's requests meet. The gateway's clock is set, so the periods' edges are crossed on purpose.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ADMIN_KEY, startTestGateway, type TestGateway } from "../support/gateway.ts";
import { chatChunks, chatOnce, sdkClient, type SdkRig } from "../support/openrouter-sdk.ts";

const SATURDAY = Date.parse("2025-05-31T12:00:00Z");
const SUNDAY = Date.parse("2025-06-01T12:00:00Z");
const MONDAY = Date.parse("2025-06-02T12:00:00Z");

let now = SATURDAY;
let gw: TestGateway;
let user: SdkRig;
let admin: SdkRig;
beforeAll(async () => {
  gw = await startTestGateway({ file: { limits: { rate_limit: { requests: 1_000, interval_seconds: 60 } } }, overrides: { clock: { now: () => now } } });
  user = sdkClient(gw, gw.inferenceKey);
  admin = sdkClient(gw, ADMIN_KEY);
});
afterAll(async () => gw.close());

/** One billed request on the larger simulated model; its cost as the reply reports it. */
async function spend(sdk = user.sdk): Promise<number> {
  const reply = await chatOnce(sdk, { model: "simulator/large", messages: [{ role: "user", content: "hello there [sim tokens=20]" }] });
  return reply.usage!.cost!;
}

describe("usage periods", () => {
  test("usage_daily / weekly / monthly follow the UTC day, the week from Monday and the month, flushed or not", async () => {
    now = SATURDAY;
    const saturday = await spend();
    now = SUNDAY;
    const sunday = await spend();
    const expectPeriods = async (sdk: SdkRig["sdk"], p: { usage: number; daily: number; weekly: number; monthly: number }) => {
      const { data } = await sdk.apiKeys.getCurrentKeyMetadata();
      expect(data.usage).toBeCloseTo(p.usage, 12);
      expect(data.usageDaily).toBeCloseTo(p.daily, 12);
      expect(data.usageWeekly).toBeCloseTo(p.weekly, 12);
      expect(data.usageMonthly).toBeCloseTo(p.monthly, 12);
      expect([data.byokUsage, data.byokUsageDaily, data.byokUsageWeekly, data.byokUsageMonthly]).toEqual([0, 0, 0, 0]);
    };
    // Sunday: Saturday is in the same week (Monday 26 May on) but in May, and not today.
    const sundayView = { usage: saturday + sunday, daily: sunday, weekly: saturday + sunday, monthly: sunday };
    await expectPeriods(user.sdk, sundayView);
    await gw.gateway.deps.ledger.flush();
    await expectPeriods(user.sdk, sundayView);

    now = MONDAY;
    const monday = await spend();
    await expectPeriods(user.sdk, { usage: saturday + sunday + monday, daily: monday, weekly: monday, monthly: sunday + monday });
    // The management view of the same key agrees.
    const { data } = await admin.sdk.apiKeys.get({ hash: gw.inferenceKeyHash });
    expect(data.usageDaily).toBeCloseTo(monday, 12);
    expect(data.usageMonthly).toBeCloseTo(sunday + monday, 12);
  });

  test("a generation reads back with the cost, tokens and provider of the request that made it", async () => {
    const reply = await chatOnce(user.sdk, { model: "simulator/large", messages: [{ role: "user", content: "one generation" }] });
    const { data } = await user.sdk.generations.getGeneration({ id: reply.id });
    expect(data).toMatchObject({ id: reply.id, model: "simulator/large", providerName: "simulator", apiType: "completions", streamed: false, cancelled: null, isByok: false });
    expect(data.totalCost).toBeCloseTo(reply.usage!.cost!, 12);
    expect(data.tokensPrompt).toBe(reply.usage!.promptTokens);
    expect(data.tokensCompletion).toBe(reply.usage!.completionTokens);
    expect(data.nativeFinishReason).toBe("stop");
    expect(data.createdAt).toBe(new Date(now).toISOString());

    const chunks = await chatChunks(user.sdk, { model: "simulator/small", messages: [{ role: "user", content: "streamed" }] });
    expect((await user.sdk.generations.getGeneration({ id: chunks[0]!.id })).data.streamed).toBe(true);
  });
});

describe("key management through the SDK", () => {
  test("include_byok_in_limit is accepted on create and update, stored, and returned by get and list", async () => {
    const created = await admin.sdk.apiKeys.create({ requestBody: { name: "sdk key", limit: 5, limitReset: "weekly", includeByokInLimit: true } });
    expect(created.key).toBeTruthy();
    expect(created.data).toMatchObject({ name: "sdk key", includeByokInLimit: true, limit: 5, limitRemaining: 5, limitReset: "weekly", usage: 0, usageDaily: 0, externalUser: null });
    const hash = created.data.hash;
    expect((await admin.sdk.apiKeys.get({ hash })).data.includeByokInLimit).toBe(true);
    const updated = await admin.sdk.apiKeys.update({ hash, requestBody: { includeByokInLimit: false, name: "renamed" } });
    expect(updated.data).toMatchObject({ includeByokInLimit: false, name: "renamed", limit: 5 });
    const listed = (await admin.sdk.apiKeys.list()).data.find((k) => k.hash === hash);
    expect(listed).toMatchObject({ includeByokInLimit: false, name: "renamed" });
    // The new key spends; its figures are its own.
    const cost = await spend(sdkClient(gw, created.key).sdk);
    const spent = (await admin.sdk.apiKeys.get({ hash })).data;
    expect(spent.usage).toBeCloseTo(cost, 12);
    expect(spent.usageDaily).toBeCloseTo(cost, 12);
    expect(spent.limitRemaining!).toBeCloseTo(5 - cost, 12);
  });

  test("rate_limit is the limit the key meets: the config default, its own, none for a management key", async () => {
    const byDefault = (await user.sdk.apiKeys.getCurrentKeyMetadata()).data.rateLimit;
    expect(byDefault).toMatchObject({ requests: 1_000, interval: "1m" });
    expect(user.bodies.at(-1)).toMatchObject({ data: { rate_limit: { source: "default", tokens: null, interval_seconds: 60 } } });

    const res = await gw.request("/keys", { key: ADMIN_KEY, method: "POST", json: { name: "slow", rate_limit: { requests: 1, tokens: 500, interval_seconds: 3_600 } } });
    const own = sdkClient(gw, ((await res.json()) as { key: string }).key);
    expect((await own.sdk.apiKeys.getCurrentKeyMetadata()).data.rateLimit).toMatchObject({ requests: 1, interval: "1h" });
    expect(own.bodies.at(-1)).toMatchObject({ data: { rate_limit: { source: "key", tokens: 500, interval_seconds: 3_600 } } });
    // And it is the limit that applies: the second request within the hour is refused.
    await spend(own.sdk);
    await expect(spend(own.sdk)).rejects.toMatchObject({ statusCode: 429 });

    const management = (await admin.sdk.apiKeys.getCurrentKeyMetadata()).data;
    expect(management).toMatchObject({ isManagementKey: true, usage: 0, usageDaily: 0, includeByokInLimit: false, rateLimit: { requests: -1, interval: "none" } });
    expect(management).toMatchObject({ isFreeTier: false, allowedDataRegions: ["global"], organizationId: null });
  });
});
