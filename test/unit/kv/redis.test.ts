/** The Redis kv: the shared contract, independent clients sharing state, failing fast, script loading. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Redis from "ioredis";
import type { Kv } from "../../../core/kv/kv.ts";
import { LuaScript } from "../../../core/kv/lua-script.ts";
import { createRedisKv } from "../../../core/kv/redis.ts";
import { describeKv, listen, runPrefix } from "./kv-suite.ts";
import { startTcpProxy } from "./tcp-proxy.ts";

const REDIS_URL = process.env.REDIS_URL;
if (!REDIS_URL) console.log("kv: Redis tests skipped (set REDIS_URL=redis://… to run them)");
const prefix = runPrefix();

// Cleans up this run's keys only: the server may be shared, so no FLUSHDB.
afterAll(async () => {
  if (!REDIS_URL) return;
  const admin = new Redis(REDIS_URL);
  let cursor = "0";
  do {
    const [next, keys] = await admin.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
    if (keys.length > 0) await admin.del(...keys);
    cursor = next;
  } while (cursor !== "0");
  await admin.quit();
});

describeKv("redis", () => createRedisKv(REDIS_URL ?? ""), prefix, !REDIS_URL);

describe.skipIf(!REDIS_URL)("redis kv: two independent clients (as two gateway processes)", () => {
  const url = REDIS_URL ?? "";
  let a: Kv;
  let b: Kv;
  let n = 0;
  const key = (name: string) => `${prefix}pair:${name}:${++n}`;

  // Set-up every test below uses, so it runs whatever tests are selected (and fails them all if Redis refuses).
  beforeAll(async () => {
    [a, b] = await Promise.all([createRedisKv(url), createRedisKv(url)]);
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
  });

  test("see each other's values", async () => {
    const k = key("v");
    await a.set(k, "from-a", 10_000);
    expect(await b.get(k)).toBe("from-a");
    await b.del(k);
    expect(await a.get(k)).toBeNull();
  });

  test("setIfAbsent races across clients have one winner", async () => {
    const k = key("lock");
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a : b).setIfAbsent(k, `v${i}`, 10_000)),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  test("share one rate limit", async () => {
    const k = key("rl");
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? a : b).rateLimit(k, 10, 60_000)),
    );
    expect(results.filter((r) => r.allowed)).toHaveLength(10);
  });

  test("share one budget: reservations, spend and release", async () => {
    const budget = key("budget");
    const spent = key("spent");
    await a.incrBy(spent, 2);
    const grants = await Promise.all(
      Array.from({ length: 50 }, (_, i) => (i % 2 === 0 ? a : b).reserve(budget, spent, `r${i}`, 1, 10, 10_000)),
    );
    expect(grants.filter(Boolean)).toHaveLength(8);
    await b.release(budget, `r${grants.indexOf(true)}`);
    expect(await a.reserve(budget, spent, "late", 1, 10, 10_000)).toBe(true);
    expect(await b.reserve(budget, spent, "later", 1, 10, 10_000)).toBe(false);
  });

  test("a message published by one reaches the other's subscribers", async () => {
    const channel = key("chan");
    const received = await listen(b, channel);
    await a.publish(channel, "key-revoked");
    expect(await received.message).toBe("key-revoked");
  });
});

describe.skipIf(!REDIS_URL)("redis kv: failing fast", () => {
  test("while Redis is unreachable commands reject at once, and work again once it is back", async () => {
    const target = new URL(REDIS_URL ?? "");
    const proxy = await startTcpProxy(target.hostname, Number(target.port || 6379));
    const viaProxy = new URL(target);
    viaProxy.hostname = "127.0.0.1";
    viaProxy.port = String(proxy.port);
    const kv = await createRedisKv(viaProxy.toString());
    const k = `${prefix}failfast`;
    try {
      await kv.set(k, "v", 10_000);
      await proxy.stop();
      // A command caught by the drop itself fails after one reconnect attempt (maxRetriesPerRequest: 1).
      let started = Date.now();
      await expect(kv.get(k)).rejects.toThrow();
      expect(Date.now() - started).toBeLessThan(1_000);
      // Once the client knows the connection is gone, commands are not queued for a reconnect: they fail at once,
      // however long the reconnect backoff has grown.
      await Bun.sleep(500);
      started = Date.now();
      await expect(kv.rateLimit(`${k}:rl`, 5, 1000)).rejects.toThrow();
      await expect(kv.get(k)).rejects.toThrow();
      expect(Date.now() - started).toBeLessThan(50);

      await proxy.start();
      let value: string | null = null;
      for (let attempt = 0; attempt < 50 && value === null; attempt++) {
        value = await kv.get(k).catch(() => null);
        if (value === null) await Bun.sleep(100);
      }
      expect(value).toBe("v");
    } finally {
      await kv.close();
      await proxy.stop();
    }
  });
});

describe.skipIf(!REDIS_URL)("LuaScript", () => {
  test("loads an unknown script with EVAL, then runs it by SHA", async () => {
    const client = new Redis(REDIS_URL ?? "");
    // A source unique to this run, so the server cannot already know its SHA.
    const script = new LuaScript(`-- ${crypto.randomUUID()}\nreturn ARGV[1] .. KEYS[1]`);
    try {
      expect(await client.script("EXISTS", script.sha)).toEqual([0]);
      expect(await script.run(client, [`${prefix}lua`], ["x:"])).toBe(`x:${prefix}lua`);
      expect(await client.script("EXISTS", script.sha)).toEqual([1]);
      expect(await script.run(client, [`${prefix}lua`], ["y:"])).toBe(`y:${prefix}lua`);
    } finally {
      await client.quit();
    }
  });
});
