/**
 * The Redis kv through an outage of its own Redis (started on a free port, killed and restarted by PID; never the
 * machine's shared one): commands fail within a second with the 503 while it is down, a command's own error stays
 * what it is, the kv serves again once Redis is back, and connecting to a Redis that is not there is "unreachable"
 * (start-up waits for it) rather than a plain failure.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { isGatewayError } from "../../../core/errors.ts";
import type { Kv } from "../../../core/kv/kv.ts";
import { createRedisKv } from "../../../core/kv/redis.ts";
import { isRedisOutage } from "../../../core/kv/redis-outage.ts";
import { StoreUnreachableError } from "../../../core/ops/unavailable.ts";
import { freePort } from "../../support/free-port.ts";
import { findRedis, startOwnRedis, type OwnRedis } from "../../support/own-redis.ts";

const binary = findRedis();
if (typeof binary !== "string") console.log(`redis outage: skipped (${binary.skip})`);

describe("isRedisOutage", () => {
  const reply = (message: string) => Object.assign(new Error(message), { name: "ReplyError" });
  test("connection failures and a server that cannot serve now are outages; a command's own error is not", () => {
    expect(isRedisOutage(new Error("Connection is closed."))).toBe(true);
    expect(isRedisOutage(new Error("Stream isn't writeable and enableOfflineQueue options is false"))).toBe(true);
    expect(isRedisOutage(new Error("Command timed out"))).toBe(true);
    expect(isRedisOutage(reply("LOADING Redis is loading the dataset in memory"))).toBe(true);
    expect(isRedisOutage(reply("READONLY You can't write against a read only replica."))).toBe(true);
    expect(isRedisOutage(reply("WRONGTYPE Operation against a key holding the wrong kind of value"))).toBe(false);
    expect(isRedisOutage(reply("WRONGPASS invalid username-password pair"))).toBe(false);
  });
});

describe.skipIf(typeof binary !== "string")("the Redis kv when its Redis goes away", () => {
  let redis: OwnRedis;
  let kv: Kv;
  beforeAll(async () => {
    redis = await startOwnRedis(binary as string);
    kv = await createRedisKv(redis.url);
  });
  afterAll(async () => {
    await kv?.close();
    await redis?.kill();
  });

  test("down: every command fails with the 503 within a second; back: it serves again without a restart", async () => {
    await kv.set("k", "v");
    await redis.kill();
    for (const command of [() => kv.get("k"), () => kv.incrBy("n", 1), () => kv.rateLimit("r", 10, 1_000), () => kv.publish("c", "m")]) {
      const started = performance.now();
      const error = await command().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(performance.now() - started).toBeLessThan(1_000);
      expect(isGatewayError(error) && [error.status, error.retryAfter]).toEqual([503, 1]);
    }
    await redis.start();
    const deadline = Date.now() + 5_000;
    let value: string | null | undefined;
    while (Date.now() < deadline) {
      value = await kv.get("k").catch(() => undefined);
      if (value !== undefined) break;
      await Bun.sleep(50);
    }
    expect(value).toBeNull(); // served again (a restarted Redis without persistence holds nothing)
  });

  test("a command's own error is not an outage", async () => {
    await kv.set("str", "x");
    const error = await kv.incrBy("str", 1).catch((e: unknown) => e);
    expect(isGatewayError(error)).toBe(false);
  });

  test("connecting to a Redis that is not there is unreachable (start-up waits for it)", async () => {
    const port = await freePort();
    const error = await createRedisKv(`redis://127.0.0.1:${port}`, undefined, { connectTimeoutMs: 500 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreUnreachableError);
    expect((error as Error).message).toStartWith("REDIS_URL: cannot connect to Redis (");
  });
});
