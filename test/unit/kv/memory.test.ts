/** The memory kv: the shared contract, plus exact timing with a fake clock, sweeping and closing. */
import { describe, expect, test } from "bun:test";
import { createMemoryKv } from "../../../core/kv/memory.ts";
import { describeKv, runPrefix, sleep } from "./kv-suite.ts";

describeKv("memory", async () => createMemoryKv(), runPrefix());

/** A clock the test moves by hand. */
function fakeClock(start = 1_700_000_000_000) {
  const clock = { ms: start, now: () => clock.ms };
  return clock;
}

describe("memory kv with a fake clock", () => {
  test("a value expires exactly at its TTL", async () => {
    const clock = fakeClock();
    const kv = createMemoryKv(clock);
    await kv.set("k", "v", 1000);
    clock.ms += 999;
    expect(await kv.get("k")).toBe("v");
    clock.ms += 1;
    expect(await kv.get("k")).toBeNull();
    await kv.close();
  });

  test("GCRA: exact burst, exact retry-after, one unit back per emission interval", async () => {
    const clock = fakeClock();
    const kv = createMemoryKv(clock);
    // 3 per second: the emission interval is 333.334 ms (rounded up to whole µs).
    for (let i = 0; i < 3; i++) expect((await kv.rateLimit("rl", 3, 1000)).allowed).toBe(true);
    const denied = await kv.rateLimit("rl", 3, 1000);
    expect(denied).toEqual({ allowed: false, limit: 3, remaining: 0, resetMs: 1001, retryAfterMs: 334 });
    clock.ms += 333;
    expect((await kv.rateLimit("rl", 3, 1000)).allowed).toBe(false);
    clock.ms += 1;
    expect(await kv.rateLimit("rl", 3, 1000)).toMatchObject({ allowed: true, remaining: 0 });
    clock.ms += 10_000;
    expect(await kv.rateLimit("rl", 3, 1000)).toEqual({
      allowed: true,
      limit: 3,
      remaining: 2,
      resetMs: 334,
      retryAfterMs: 0,
    });
    await kv.close();
  });

  test("GCRA: a burst of a large limit is exact (no float drift)", async () => {
    const clock = fakeClock(1_799_999_999_999);
    const kv = createMemoryKv(clock);
    let allowed = 0;
    for (let i = 0; i < 10_001; i++) if ((await kv.rateLimit("big", 10_000, 3_600_000 / 7)).allowed) allowed++;
    expect(allowed).toBe(10_000);
    await kv.close();
  });

  test("GCRA: the state expires once fully reset", async () => {
    const clock = fakeClock();
    const kv = createMemoryKv(clock);
    await kv.rateLimit("rl", 2, 1000);
    expect(kv.size).toBe(1);
    clock.ms += 502;
    kv.sweep();
    expect(kv.size).toBe(0);
    await kv.close();
  });

  test("a reservation expires exactly at its TTL", async () => {
    const clock = fakeClock();
    const kv = createMemoryKv(clock);
    expect(await kv.reserve("b", "s", "a", 10, 10, 5000)).toBe(true);
    clock.ms += 4999;
    expect(await kv.reserve("b", "s", "x", 1, 10, 5000)).toBe(false);
    clock.ms += 1;
    expect(await kv.reserve("b", "s", "x", 1, 10, 5000)).toBe(true);
    await kv.close();
  });

  test("sweep drops expired values and reservations; live ones stay", async () => {
    const clock = fakeClock();
    const kv = createMemoryKv(clock);
    await kv.set("short", "x", 100);
    await kv.set("long", "x", 10_000);
    await kv.set("forever", "x");
    await kv.reserve("budget", "spent", "r", 1, 10, 100);
    expect(kv.size).toBe(4);
    clock.ms += 100;
    kv.sweep();
    expect(kv.size).toBe(2);
    expect(await kv.get("long")).toBe("x");
    await kv.close();
  });

  test("the periodic sweep runs on its own", async () => {
    const clock = fakeClock();
    const kv = createMemoryKv(clock, { sweepIntervalMs: 5 });
    await kv.set("k", "x", 10);
    clock.ms += 10;
    await sleep(30);
    expect(kv.size).toBe(0);
    await kv.close();
  });

  test("publish delivers asynchronously, never inside the publisher's call", async () => {
    const kv = createMemoryKv();
    const seen: string[] = [];
    await kv.subscribe("c", (m) => seen.push(m));
    const published = kv.publish("c", "m");
    expect(seen).toEqual([]);
    await published;
    await sleep(0);
    expect(seen).toEqual(["m"]);
    await kv.close();
  });

  test("a closed kv rejects further use", async () => {
    const kv = createMemoryKv();
    await kv.close();
    await expect(kv.get("k")).rejects.toThrow(/closed/);
  });
});
