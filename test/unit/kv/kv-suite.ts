/** One behavioural suite every kv implementation must pass (memory always, Redis when REDIS_URL is set). */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Kv } from "../../../core/kv/kv.ts";

/** Sleeps in real time (the Redis kv expires keys on the server's clock). */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A key prefix unique to this run: the Redis server may be shared, and FLUSHDB is off limits. */
export function runPrefix(): string {
  return `gw-test:${process.pid}:${crypto.randomUUID().slice(0, 8)}:`;
}

/** Subscribes (awaiting the subscription) and returns the first message to come, rejecting after `timeoutMs`. */
export async function listen(kv: Kv, channel: string, timeoutMs = 2_000): Promise<{ message: Promise<string> }> {
  const { promise, resolve, reject } = Promise.withResolvers<string>();
  const timer = setTimeout(() => reject(new Error(`no message on ${channel}`)), timeoutMs);
  await kv.subscribe(channel, (message) => {
    clearTimeout(timer);
    resolve(message);
  });
  return { message: promise };
}

/** Registers the suite; `prefix` namespaces every key and channel it touches. */
export function describeKv(label: string, open: () => Promise<Kv>, prefix: string, skip = false): void {
  describe.skipIf(skip)(`kv contract: ${label}`, () => {
    let kv: Kv;
    let n = 0;
    /** A fresh key per use, so tests never interfere. */
    const key = (name: string) => `${prefix}${label}:${name}:${++n}`;

    beforeAll(async () => {
      kv = await open();
    });
    afterAll(async () => {
      await kv?.close();
    });

    describe("values", () => {
      test("get of a missing key is null; set then get; del", async () => {
        const k = key("v");
        expect(await kv.get(k)).toBeNull();
        await kv.set(k, "one");
        expect(await kv.get(k)).toBe("one");
        await kv.set(k, "two");
        expect(await kv.get(k)).toBe("two");
        await kv.del(k);
        expect(await kv.get(k)).toBeNull();
        await kv.del(k); // idempotent
      });

      test("a TTL expires the value; a later set without TTL keeps it for good", async () => {
        const k = key("ttl");
        const kept = key("kept");
        await kv.set(k, "x", 60);
        await kv.set(kept, "x", 60);
        await kv.set(kept, "y");
        expect(await kv.get(k)).toBe("x");
        await sleep(150);
        expect(await kv.get(k)).toBeNull();
        expect(await kv.get(kept)).toBe("y");
      });

      test("non-positive or non-finite TTLs are rejected", async () => {
        await expect(kv.set(key("bad"), "x", 0)).rejects.toThrow(RangeError);
        await expect(kv.setIfAbsent(key("bad"), "x", -5)).rejects.toThrow(RangeError);
        await expect(kv.incrBy(key("bad"), 1, Number.NaN)).rejects.toThrow(RangeError);
      });
    });

    describe("setIfAbsent", () => {
      test("sets only when absent, and again once the holder expires or is deleted", async () => {
        const k = key("lock");
        expect(await kv.setIfAbsent(k, "a", 60)).toBe(true);
        expect(await kv.setIfAbsent(k, "b", 60)).toBe(false);
        expect(await kv.get(k)).toBe("a");
        await sleep(150);
        expect(await kv.setIfAbsent(k, "c", 5_000)).toBe(true);
        await kv.del(k);
        expect(await kv.setIfAbsent(k, "d", 5_000)).toBe(true);
        expect(await kv.get(k)).toBe("d");
      });

      test("of 20 concurrent attempts exactly one wins, and its value is stored", async () => {
        const k = key("race");
        const results = await Promise.all(Array.from({ length: 20 }, (_, i) => kv.setIfAbsent(k, `v${i}`, 5_000)));
        expect(results.filter(Boolean)).toHaveLength(1);
        expect(await kv.get(k)).toBe(`v${results.indexOf(true)}`);
      });
    });

    describe("incrBy", () => {
      test("creates the key at 0 and adds floats, returning the new value", async () => {
        const k = key("ctr");
        expect(await kv.incrBy(k, 1.5)).toBe(1.5);
        expect(await kv.incrBy(k, -0.25)).toBe(1.25);
        let last = 0;
        for (let i = 0; i < 10; i++) last = await kv.incrBy(k, 0.1);
        expect(last).toBeCloseTo(2.25, 9);
        expect(Number(await kv.get(k))).toBeCloseTo(2.25, 9);
      });

      test("is atomic under concurrency", async () => {
        const k = key("ctr-conc");
        await Promise.all(Array.from({ length: 50 }, () => kv.incrBy(k, 0.5)));
        expect(Number(await kv.get(k))).toBe(25);
      });

      test("a TTL (re)sets the expiry; without one an existing expiry survives", async () => {
        const k = key("ctr-ttl");
        // 300 ms, not less: a loaded CI machine can take tens of milliseconds between two calls.
        await kv.incrBy(k, 1, 300);
        await kv.incrBy(k, 1); // keeps the 300 ms expiry
        expect(await kv.get(k)).toBe("2");
        await sleep(450);
        expect(await kv.get(k)).toBeNull();

        const refreshed = key("ctr-refresh");
        await kv.incrBy(refreshed, 1, 300);
        await kv.incrBy(refreshed, 1, 10_000);
        await sleep(450);
        expect(await kv.get(refreshed)).toBe("2");
      });

      test("rejects a non-numeric value and a non-finite amount", async () => {
        const k = key("ctr-bad");
        await kv.set(k, "not a number");
        await expect(kv.incrBy(k, 1)).rejects.toThrow();
        await expect(kv.incrBy(key("ctr-nan"), Number.NaN)).rejects.toThrow(RangeError);
      });
    });

    describe("rateLimit (GCRA)", () => {
      test("allows exactly `limit` in a burst, then denies with the wait for one emission interval", async () => {
        const k = key("rl");
        const results = [];
        for (let i = 0; i < 5; i++) results.push(await kv.rateLimit(k, 5, 60_000));
        expect(results.map((r) => r.allowed)).toEqual([true, true, true, true, true]);
        expect(results.map((r) => r.remaining)).toEqual([4, 3, 2, 1, 0]);
        expect(results[0]).toMatchObject({ limit: 5, retryAfterMs: 0 });
        expect(results[0]!.resetMs).toBeGreaterThan(11_000);
        expect(results[0]!.resetMs).toBeLessThanOrEqual(12_000);

        const denied = await kv.rateLimit(k, 5, 60_000);
        expect(denied).toMatchObject({ allowed: false, limit: 5, remaining: 0 });
        // One interval is 60 s / 5 = 12 s, less the few ms this test took.
        expect(denied.retryAfterMs).toBeGreaterThan(11_000);
        expect(denied.retryAfterMs).toBeLessThanOrEqual(12_000);
        expect(denied.resetMs).toBeGreaterThan(59_000);
        expect(denied.resetMs).toBeLessThanOrEqual(60_000);
        // A denial takes nothing: the next call is denied the same way, not pushed further out.
        expect((await kv.rateLimit(k, 5, 60_000)).retryAfterMs).toBeLessThanOrEqual(denied.retryAfterMs);
      });

      test("keys are independent", async () => {
        const a = key("rl-a");
        for (let i = 0; i < 2; i++) await kv.rateLimit(a, 2, 60_000);
        expect((await kv.rateLimit(a, 2, 60_000)).allowed).toBe(false);
        expect((await kv.rateLimit(key("rl-b"), 2, 60_000)).allowed).toBe(true);
      });

      test("cost takes several units at once; a cost that does not fit is denied whole", async () => {
        const k = key("rl-cost");
        expect(await kv.rateLimit(k, 10, 60_000, 7)).toMatchObject({ allowed: true, remaining: 3 });
        const denied = await kv.rateLimit(k, 10, 60_000, 5);
        expect(denied).toMatchObject({ allowed: false, remaining: 3 });
        // Two more units must drain: 2 × 6 s.
        expect(denied.retryAfterMs).toBeGreaterThan(11_000);
        expect(denied.retryAfterMs).toBeLessThanOrEqual(12_000);
        expect(await kv.rateLimit(k, 10, 60_000, 3)).toMatchObject({ allowed: true, remaining: 0 });
        expect(await kv.rateLimit(k, 10, 60_000, 0)).toMatchObject({ allowed: true, remaining: 0 });
      });

      test("is exact under concurrency: 50 parallel calls against a limit of 10 allow 10", async () => {
        const k = key("rl-conc");
        const results = await Promise.all(Array.from({ length: 50 }, () => kv.rateLimit(k, 10, 60_000)));
        expect(results.filter((r) => r.allowed)).toHaveLength(10);
      });

      test("capacity comes back one interval at a time", async () => {
        const k = key("rl-refill");
        expect((await kv.rateLimit(k, 2, 300)).allowed).toBe(true);
        expect((await kv.rateLimit(k, 2, 300)).allowed).toBe(true);
        const denied = await kv.rateLimit(k, 2, 300);
        expect(denied.allowed).toBe(false);
        expect(denied.retryAfterMs).toBeGreaterThan(0);
        expect(denied.retryAfterMs).toBeLessThanOrEqual(150);
        await sleep(denied.retryAfterMs + 20);
        expect((await kv.rateLimit(k, 2, 300)).allowed).toBe(true);
        expect((await kv.rateLimit(k, 2, 300)).allowed).toBe(false);
      });

      test("invalid arguments are rejected", async () => {
        await expect(kv.rateLimit(key("rl-bad"), 0, 1000)).rejects.toThrow(RangeError);
        await expect(kv.rateLimit(key("rl-bad"), 5, -1)).rejects.toThrow(RangeError);
        await expect(kv.rateLimit(key("rl-bad"), 5, 1000, -1)).rejects.toThrow(RangeError);
      });
    });

    describe("reserve / release", () => {
      test("50 parallel reservations of 1 against a limit of 10 grant exactly 10", async () => {
        const budget = key("budget");
        const grants = await Promise.all(
          Array.from({ length: 50 }, (_, i) => kv.reserve(budget, key("spent"), `req-${i}`, 1, 10, 10_000)),
        );
        expect(grants.filter(Boolean)).toHaveLength(10);
      });

      test("spent counts against the limit", async () => {
        const budget = key("budget");
        const spent = key("spent");
        await kv.incrBy(spent, 7.5);
        expect(await kv.reserve(budget, spent, "a", 2, 10, 10_000)).toBe(true);
        expect(await kv.reserve(budget, spent, "b", 0.6, 10, 10_000)).toBe(false);
        expect(await kv.reserve(budget, spent, "c", 0.5, 10, 10_000)).toBe(true);
      });

      test("release frees the budget, and is idempotent", async () => {
        const budget = key("budget");
        const spent = key("spent");
        expect(await kv.reserve(budget, spent, "a", 6, 10, 10_000)).toBe(true);
        expect(await kv.reserve(budget, spent, "b", 6, 10, 10_000)).toBe(false);
        await kv.release(budget, "a");
        await kv.release(budget, "a");
        await kv.release(budget, "never-reserved");
        expect(await kv.reserve(budget, spent, "b", 6, 10, 10_000)).toBe(true);
      });

      test("an expired reservation no longer counts", async () => {
        const budget = key("budget");
        const spent = key("spent");
        expect(await kv.reserve(budget, spent, "crashed", 8, 10, 60)).toBe(true);
        expect(await kv.reserve(budget, spent, "b", 5, 10, 10_000)).toBe(false);
        await sleep(150);
        expect(await kv.reserve(budget, spent, "b", 5, 10, 10_000)).toBe(true);
        expect(await kv.reserve(budget, spent, "c", 5, 10, 10_000)).toBe(true);
        expect(await kv.reserve(budget, spent, "d", 0.01, 10, 10_000)).toBe(false);
      });

      test("re-reserving an id replaces its amount", async () => {
        const budget = key("budget");
        const spent = key("spent");
        expect(await kv.reserve(budget, spent, "a", 4, 10, 10_000)).toBe(true);
        expect(await kv.reserve(budget, spent, "a", 9, 10, 10_000)).toBe(true);
        expect(await kv.reserve(budget, spent, "b", 1, 10, 10_000)).toBe(true);
        expect(await kv.reserve(budget, spent, "c", 0.5, 10, 10_000)).toBe(false);
      });

      test("float sums that reach the limit exactly are granted (0.1 + 0.2 fits 0.3)", async () => {
        const budget = key("budget");
        const spent = key("spent");
        expect(await kv.reserve(budget, spent, "a", 0.1, 0.3, 10_000)).toBe(true);
        expect(await kv.reserve(budget, spent, "b", 0.2, 0.3, 10_000)).toBe(true);
        expect(await kv.reserve(budget, spent, "c", 0.000001, 0.3, 10_000)).toBe(false);
      });

      test("an amount above the limit is denied; bad arguments are rejected", async () => {
        expect(await kv.reserve(key("budget"), key("spent"), "a", 11, 10, 10_000)).toBe(false);
        await expect(kv.reserve(key("budget"), key("spent"), "a", -1, 10, 10_000)).rejects.toThrow(RangeError);
        await expect(kv.reserve(key("budget"), key("spent"), "a", 1, 10, 0)).rejects.toThrow(RangeError);
      });
    });

    describe("byte-bounded pools", () => {
      const entry = (k: string, value: string, groups: string[] = [], ttlMs = 10_000) => ({ key: k, value, ttlMs, groups });

      test("put then get; a value over the bound is refused; a replaced key counts once", async () => {
        const pool = key("pool");
        expect(await kv.poolGet(pool, "a")).toBeNull();
        expect(await kv.poolPut(pool, entry("a", "x".repeat(100)), 1_000)).toEqual({ stored: true, bytes: 100, evicted: 0 });
        expect(await kv.poolGet(pool, "a")).toBe("x".repeat(100));
        // UTF-8 bytes, not characters: "é" is two.
        expect(await kv.poolPut(pool, entry("b", "é".repeat(501)), 1_000)).toEqual({ stored: false, bytes: 1_002, evicted: 0 });
        // Exactly the bound fits, making room by dropping "a".
        expect(await kv.poolPut(pool, entry("b", "é".repeat(500)), 1_000)).toEqual({ stored: true, bytes: 1_000, evicted: 1 });
        expect(await kv.poolGet(pool, "a")).toBeNull();
        expect(await kv.poolBytes(pool)).toBe(1_000);
        await kv.poolPut(pool, entry("b", "y".repeat(10)), 1_000);
        expect(await kv.poolBytes(pool)).toBe(10);
      });

      test("at the bound, the entries nearest their expiry go first", async () => {
        const pool = key("pool-evict");
        await kv.poolPut(pool, entry("late", "l".repeat(400), [], 60_000), 1_000);
        await kv.poolPut(pool, entry("soon", "s".repeat(400), [], 20_000), 1_000);
        // 800 + 200 fits exactly; one byte more does not.
        expect((await kv.poolPut(pool, entry("fits", "f".repeat(200), [], 30_000), 1_000)).evicted).toBe(0);
        expect((await kv.poolPut(pool, entry("more", "m", [], 30_000), 1_000)).evicted).toBe(1);
        expect(await kv.poolGet(pool, "soon")).toBeNull();
        expect(await kv.poolGet(pool, "late")).not.toBeNull();
        expect(await kv.poolGet(pool, "fits")).not.toBeNull();
        expect(await kv.poolBytes(pool)).toBe(601);
      });

      test("entries expire with their TTL and make room", async () => {
        const pool = key("pool-ttl");
        await kv.poolPut(pool, entry("short", "x".repeat(600), [], 50), 1_000);
        await sleep(80);
        expect(await kv.poolGet(pool, "short")).toBeNull();
        expect(await kv.poolPut(pool, entry("next", "y".repeat(600)), 1_000)).toEqual({ stored: true, bytes: 600, evicted: 0 });
        expect(await kv.poolBytes(pool)).toBe(600);
      });

      test("a group is dropped whole, and only it", async () => {
        const pool = key("pool-groups");
        await kv.poolPut(pool, entry("a1", "1", ["ws-a", "ws-a|m1"]), 1_000);
        await kv.poolPut(pool, entry("a2", "22", ["ws-a", "ws-a|m2"]), 1_000);
        await kv.poolPut(pool, entry("b1", "333", ["ws-b", "ws-b|m1"]), 1_000);
        expect(await kv.poolDrop(pool, "ws-a|m1")).toBe(1);
        expect(await kv.poolGet(pool, "a1")).toBeNull();
        expect(await kv.poolGet(pool, "a2")).toBe("22");
        expect(await kv.poolDrop(pool, "ws-a")).toBe(1);
        expect(await kv.poolDrop(pool, "ws-a")).toBe(0);
        expect(await kv.poolGet(pool, "b1")).toBe("333");
        expect(await kv.poolBytes(pool)).toBe(3);
      });
    });

    describe("publish / subscribe", () => {
      test("delivers to every subscriber of the channel, and only of that channel", async () => {
        const channel = key("chan");
        const [first, second] = await Promise.all([listen(kv, channel), listen(kv, channel)]);
        const other: string[] = [];
        await kv.subscribe(key("other-chan"), (m) => other.push(m));
        await kv.publish(channel, "revoke:abc");
        expect(await first.message).toBe("revoke:abc");
        expect(await second.message).toBe("revoke:abc");
        await sleep(20);
        expect(other).toEqual([]);
      });

      test("a throwing subscriber does not stop the others", async () => {
        const channel = key("chan-throw");
        await kv.subscribe(channel, () => {
          throw new Error("boom");
        });
        const received = await listen(kv, channel);
        await kv.publish(channel, "still delivered");
        expect(await received.message).toBe("still delivered");
      });
    });
  });
}
