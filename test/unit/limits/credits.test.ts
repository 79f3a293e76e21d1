/** core/limits/credits.ts and rate-limit.ts: reservations exact under concurrency, seeding, expiry, GCRA denials. */
import { describe, expect, test } from "bun:test";
import { DEFAULT_LIMITS } from "../../../core/config/routing-limits.ts";
import { createMemoryKv } from "../../../core/kv/memory.ts";
import { CreditLedger } from "../../../core/limits/credits.ts";
import { checkRateLimits } from "../../../core/limits/rate-limit.ts";
import type { Store } from "../../../core/store/types.ts";
import type { ApiKeyRecord } from "../../../core/store/types/keys.ts";
import { inferencePrincipal, manualClock, recordingLogger } from "../pipeline/helpers.ts";

const DAY = 86_400_000;

function setup(opts: { spentInStore?: number; lifetimeUsage?: number; pending?: number; ttlMs?: number } = {}) {
  const clock = manualClock(Date.parse("2025-03-13T12:00:00Z"));
  const kv = createMemoryKv(clock);
  const queries: Array<[string, number]> = [];
  const store = {
    generations: { costSince: async (hash: string, since: number) => (queries.push([hash, since]), opts.spentInStore ?? 0) },
    keys: { findByHash: async () => ({ ...record(null), usage: opts.lifetimeUsage ?? 0 }) },
  } as unknown as Pick<Store, "keys" | "generations">;
  const ledger = new CreditLedger(kv, store, { pendingUsage: () => opts.pending ?? 0, pendingUsageSince: () => opts.pending ?? 0, readConsistently: (read) => read() }, clock, recordingLogger(), { ...DEFAULT_LIMITS, reservationTtlMs: opts.ttlMs ?? 60_000 });
  return { clock, kv, ledger, queries };
}

function record(limitReset: ApiKeyRecord["limitReset"], limit = 1): ApiKeyRecord & { limit: number } {
  return { ...inferencePrincipal.record!, limit, limitReset };
}

describe("credit reservations", () => {
  test("40 concurrent reservations against a limit covering 10: exactly 10 granted", async () => {
    const { ledger } = setup();
    const key = record("daily", 1);
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => ledger.reserve(key, 0.1, `r${i}`)));
    expect(results.filter((r) => r.granted)).toHaveLength(10);
  });

  test("commit adds the actual cost then frees the reservation; spending never exceeds the limit", async () => {
    const { ledger } = setup();
    const key = record("daily", 1);
    const first = await ledger.reserve(key, 0.6, "a");
    expect(first.granted).toBe(true);
    expect((await ledger.reserve(key, 0.6, "b")).granted).toBe(false);
    if (first.granted) await first.hold.commit(0.25);
    expect(await ledger.spentInWindow(key)).toBeCloseTo(0.25, 12);
    const second = await ledger.reserve(key, 0.75, "c");
    expect(second.granted).toBe(true);
    const denied = await ledger.reserve(key, 0.01, "d");
    expect(denied).toEqual({ granted: false, remaining: 0.75 });
    if (second.granted) {
      await second.hold.release();
      await second.hold.commit(0.5); // after release: a no-op
    }
    expect(await ledger.spentInWindow(key)).toBeCloseTo(0.25, 12);
  });

  test("extend holds more under the same reservation, atomically against the limit; a refusal leaves the hold as it was", async () => {
    const { ledger } = setup();
    const key = record("daily", 1);
    const first = await ledger.reserve(key, 0.3, "a");
    if (!first.granted) throw new Error("expected a grant");
    expect(await first.hold.extend(0.4)).toBe(true);
    expect(first.hold.amount).toBeCloseTo(0.7, 12);
    expect(await first.hold.extend(0.4)).toBe(false);
    expect(first.hold.amount).toBeCloseTo(0.7, 12);
    expect((await ledger.reserve(key, 0.31, "b")).granted).toBe(false);
    expect((await ledger.reserve(key, 0.3, "c")).granted).toBe(true);
  });

  test("concurrent extends (a fan-out's turns) all count: none replaces another's", async () => {
    const { ledger } = setup();
    const key = record("daily", 1);
    const first = await ledger.reserve(key, 0.1, "a");
    if (!first.granted) throw new Error("expected a grant");
    expect(await Promise.all([first.hold.extend(0.3), first.hold.extend(0.4)])).toEqual([true, true]);
    expect(first.hold.amount).toBeCloseTo(0.8, 12);
    // 0.8 is held: 0.21 more does not fit, 0.2 does.
    expect((await ledger.reserve(key, 0.21, "b")).granted).toBe(false);
    expect((await ledger.reserve(key, 0.2, "c")).granted).toBe(true);
  });

  test("an extend racing the settlement never leaves a reservation behind; one after it is refused", async () => {
    const { ledger } = setup();
    const key = record("daily", 1);
    const first = await ledger.reserve(key, 0.5, "a");
    if (!first.granted) throw new Error("expected a grant");
    const extending = first.hold.extend(0.2);
    await first.hold.commit(0.1);
    await extending;
    expect(await first.hold.extend(0.1)).toBe(false);
    // Spent 0.1, nothing held: 0.9 fits.
    expect((await ledger.reserve(key, 0.9, "b")).granted).toBe(true);
  });

  test("a reservation left by a crashed request expires after reservation_ttl_ms", async () => {
    const { ledger, clock } = setup({ ttlMs: 1_000 });
    const key = record("daily", 1);
    expect((await ledger.reserve(key, 1, "crashed")).granted).toBe(true);
    expect((await ledger.reserve(key, 0.5, "next")).granted).toBe(false);
    clock.advance(1_001);
    expect((await ledger.reserve(key, 0.5, "next")).granted).toBe(true);
  });

  test("the window's counter is seeded from the store (plus unflushed spending) once, not per request", async () => {
    const { ledger, queries } = setup({ spentInStore: 0.7, pending: 0.1 });
    const key = record("weekly", 1);
    expect((await ledger.reserve(key, 0.25, "a")).granted).toBe(false);
    expect((await ledger.reserve(key, 0.2, "b")).granted).toBe(true);
    expect(queries).toEqual([[key.hash, Date.parse("2025-03-10T00:00:00Z")]]);
    expect(await ledger.spentInWindow(key)).toBeCloseTo(0.8, 12);
  });

  test("a new day is a new window; a lifetime limit is seeded from the key's usage", async () => {
    const daily = setup({ spentInStore: 0 });
    const key = record("daily", 1);
    const held = await daily.ledger.reserve(key, 0.9, "a");
    if (held.granted) await held.hold.commit(0.9);
    expect((await daily.ledger.reserve(key, 0.2, "b")).granted).toBe(false);
    daily.clock.advance(DAY);
    expect((await daily.ledger.reserve(key, 0.2, "c")).granted).toBe(true);

    const lifetime = setup({ lifetimeUsage: 4.5 });
    expect((await lifetime.ledger.reserve(record(null, 5), 0.6, "x")).granted).toBe(false);
    expect((await lifetime.ledger.reserve(record(null, 5), 0.5, "y")).granted).toBe(true);
  });

  test("a commit never recreates a counter the kv lost: the next reservation re-seeds it from the store", async () => {
    const { ledger, kv, queries } = setup({ spentInStore: 0.3 });
    const key = record("daily", 1);
    const held = await ledger.reserve(key, 0.1, "a");
    for (const k of ["gw:credits:spent:" + key.hash + ":d" + Date.parse("2025-03-13T00:00:00Z")]) await kv.del(k);
    if (held.granted) await held.hold.commit(0.1);
    await ledger.reserve(key, 0.1, "b");
    expect(queries).toHaveLength(2);
  });
});

describe("rate limits", () => {
  const setting = { requests: 2, tokens: 100, intervalSeconds: 60 };

  test("requests per interval: the third is refused with Retry-After and X-RateLimit headers", async () => {
    const kv = createMemoryKv();
    const now = Date.now();
    expect(await checkRateLimits(kv, "k", setting, 1, now)).toBeUndefined();
    expect(await checkRateLimits(kv, "k", setting, 1, now)).toBeUndefined();
    const denial = (await checkRateLimits(kv, "k", setting, 1, now))!;
    expect([denial.error.status, denial.error.type]).toEqual([429, "rate_limit_exceeded"]);
    expect(denial.error.retryAfter).toBeGreaterThanOrEqual(1);
    expect(denial.error.retryAfter).toBeLessThanOrEqual(30);
    expect(denial.headers["x-ratelimit-limit"]).toBe("2");
    expect(denial.headers["x-ratelimit-remaining"]).toBe("0");
    expect(Number(denial.headers["x-ratelimit-reset"])).toBeGreaterThan(now);
  });

  test("tokens per interval are charged up front; a request larger than the budget needs a full bucket", async () => {
    const kv = createMemoryKv();
    expect(await checkRateLimits(kv, "t", { requests: null, tokens: 100, intervalSeconds: 60 }, 80, Date.now())).toBeUndefined();
    const denial = await checkRateLimits(kv, "t", { requests: null, tokens: 100, intervalSeconds: 60 }, 30, Date.now());
    expect(denial?.error.metadata).toMatchObject({ rate_limit: { kind: "tokens", limit: 100 } });
    const fresh = createMemoryKv();
    expect(await checkRateLimits(fresh, "t", { requests: null, tokens: 100, intervalSeconds: 60 }, 5_000, Date.now())).toBeUndefined();
  });
});

test("a counter lost between requests (Redis restarted) is re-seeded before the next reservation is granted", async () => {
  const { ledger, kv } = setup({ spentInStore: 0.9 });
  const key = record("daily", 1);
  expect((await ledger.reserve(key, 0.05, "a")).granted).toBe(true);
  await kv.del(`gw:credits:spent:${key.hash}:d${Date.parse("2025-03-13T00:00:00Z")}`);
  expect((await ledger.reserve(key, 0.2, "b")).granted).toBe(false);
  expect((await ledger.reserve(key, 0.05, "c")).granted).toBe(true);
});
