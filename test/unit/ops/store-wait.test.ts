/**
 * core/ops/store-wait.ts: start in any order. An unreachable store is tried again with capped backoff, one log line
 * per attempt, until it answers or the limit passes — then one line naming the variable; a store that answers but
 * refuses (a wrong password, a bad URL) fails at once.
 */
import { describe, expect, test } from "bun:test";
import { openWhenReachable, StoreStartError } from "../../../core/ops/store-wait.ts";
import { StoreUnreachableError } from "../../../core/ops/unavailable.ts";
import { recordingLogger } from "../pipeline/helpers.ts";

const unreachable = () => new StoreUnreachableError("database", "DATABASE_URL: cannot open the postgres store (connect ECONNREFUSED 127.0.0.1:1)");

/** `open` fails unreachable `failures` times, then answers; sleeps are recorded, not waited. */
function scenario(failures: number) {
  const state = { calls: 0, slept: [] as number[], told: [] as Array<string | undefined> };
  const logger = recordingLogger();
  const open = async () => {
    state.calls++;
    if (state.calls <= failures) throw unreachable();
    return "store";
  };
  const options = { limitMs: 60_000, logger, sleep: async (ms: number) => void state.slept.push(ms), onWait: (store: string | undefined) => void state.told.push(store) };
  return { state, logger, open, options };
}

describe("openWhenReachable", () => {
  test("waits with doubling, capped delays, one warning per attempt, then answers and says so", async () => {
    const { state, logger, open, options } = scenario(7);
    expect(await openWhenReachable("database", open, options)).toBe("store");
    expect(state.slept).toEqual([250, 500, 1_000, 2_000, 4_000, 5_000, 5_000]);
    expect(logger.calls.filter((c) => c.level === "warn").map((c) => [c.msg, c.obj.attempt])).toEqual(
      [1, 2, 3, 4, 5, 6, 7].map((attempt) => ["start-up: waiting for the database", attempt]),
    );
    expect(logger.calls.at(-1)).toMatchObject({ level: "info", obj: { store: "database", attempts: 8 } });
    // Readiness names the store while waiting, and nothing once it answered.
    expect(state.told.at(0)).toBe("database");
    expect(state.told.at(-1)).toBeUndefined();
  });

  test("a store that answers at once is opened without a word", async () => {
    const { state, logger, open, options } = scenario(0);
    await openWhenReachable("redis", open, options);
    expect(state.slept).toEqual([]);
    expect(logger.calls).toEqual([]);
  });

  test("past the limit: one line naming the variable and the wait, no retry beyond it", async () => {
    const { state, open, options } = scenario(Number.POSITIVE_INFINITY);
    let clock = 0;
    const realNow = Date.now;
    Date.now = () => clock;
    try {
      const sleep = async (ms: number) => void ((clock += ms), state.slept.push(ms));
      const error = await openWhenReachable("database", open, { ...options, limitMs: 3_000, sleep }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreStartError);
      const message = (error as Error).message;
      expect(message.split("\n")).toHaveLength(1);
      expect(message).toStartWith("DATABASE_URL: cannot open the postgres store (connect ECONNREFUSED");
      expect(message).toContain("giving up (STORE_WAIT_SECONDS=3)");
      expect(state.slept.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(3_000);
    } finally {
      Date.now = realNow;
    }
  });

  test("a limit of 0 tries once", async () => {
    const { state, open, options } = scenario(1);
    await expect(openWhenReachable("database", open, { ...options, limitMs: 0 })).rejects.toBeInstanceOf(StoreStartError);
    expect(state.calls).toBe(1);
  });

  test("a store that refuses (not unreachable) fails at once with its own message", async () => {
    const { options } = scenario(0);
    let calls = 0;
    const refusing = async () => {
      calls++;
      throw new Error('REDIS_URL: cannot connect to Redis (WRONGPASS invalid username-password pair)');
    };
    const error = await openWhenReachable("redis", refusing, options).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreStartError);
    expect((error as Error).message).toBe("REDIS_URL: cannot connect to Redis (WRONGPASS invalid username-password pair)");
    expect(calls).toBe(1);
  });
});
