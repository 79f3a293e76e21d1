/**
 * The Redis kv: the memory kv's semantics shared by every gateway process, with atomic Lua for
 * rate limits, reservations and TTL'd counters. Commands fail fast while Redis is unreachable, so each caller
 * decides whether to fail open or closed.
 */
import Redis from "ioredis";
import type { Logger } from "pino";
import { assertFinite, assertNonNegative, ttlToMs } from "./args.ts";
import { BUDGET_EPSILON } from "./budget.ts";
import { planGcra, toRateLimitResult } from "./gcra.ts";
import type { Kv } from "./kv.ts";
import { StoreUnreachableError } from "../ops/unavailable.ts";
import { guarded, isRedisOutage } from "./redis-outage.ts";
import { INCR_BY_WITH_TTL, RATE_LIMIT, RESERVE } from "./redis-scripts.ts";
import { POOL_DROP, POOL_PUT, PRUNE_PER_WRITE, poolKeys } from "./redis-pool.ts";

/** Timeouts of the Redis kv. */
export interface RedisKvOptions {
  /** Gives up on a connection attempt after this long. */
  connectTimeoutMs?: number;
  /** Rejects a command that got no reply after this long (a hung server must not hang requests). */
  commandTimeoutMs?: number;
}

type Handler = (message: string) => void;

/**
 * Connects to `url` and returns the kv; rejects when Redis cannot be reached (the URL is not echoed). A command that
 * fails because Redis is down rejects with the 503 (redis-outage.ts).
 */
export async function createRedisKv(url: string, logger?: Logger, options: RedisKvOptions = {}): Promise<Kv> {
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: options.connectTimeoutMs ?? 2_000,
    commandTimeout: options.commandTimeoutMs ?? 2_000,
    // One retry for a command caught by a dropped connection, then an error instead of an ever-growing wait.
    maxRetriesPerRequest: 1,
    retryStrategy: (attempt) => Math.min(attempt * 100, 2_000),
  });
  client.on("error", connectionErrors(logger, "redis kv: connection error"));
  await connectOrThrow(client, "REDIS_URL");
  // Queue commands only until the first connection: afterwards, a command issued while Redis is down fails at
  // once instead of waiting for a reconnect that may never come.
  client.options.enableOfflineQueue = false;

  const subscriptions = createSubscriptions(client, logger);

  return {
    get(key) {
      return guarded(client.get(key));
    },

    async set(key, value, ttlMs) {
      if (ttlMs === undefined) await guarded(client.set(key, value));
      else await guarded(client.set(key, value, "PX", ttlToMs(ttlMs)));
    },

    async setIfAbsent(key, value, ttlMs) {
      return (await guarded(client.set(key, value, "PX", ttlToMs(ttlMs), "NX"))) === "OK";
    },

    async del(key) {
      await guarded(client.del(key));
    },

    async incrBy(key, amount, ttlMs) {
      assertFinite(amount, "amount");
      const reply =
        ttlMs === undefined
          ? await guarded(client.incrbyfloat(key, amount))
          : await guarded(INCR_BY_WITH_TTL.run(client, [key], [amount, ttlToMs(ttlMs)]));
      return Number(reply);
    },

    async rateLimit(key, limit, periodMs, cost = 1) {
      const plan = planGcra(limit, periodMs, cost);
      const reply = await guarded(RATE_LIMIT.run(client, [key], [plan.incrementUs, plan.toleranceUs]));
      const [allowed, backlogUs, retryUs] = threeIntegers(reply, "rateLimit");
      return toRateLimitResult(plan, { allowed: allowed === 1, backlogUs, retryUs });
    },

    async reserve(key, spentKey, id, amount, limit, ttlMs) {
      assertNonNegative(amount, "amount");
      assertFinite(limit, "limit");
      const reply = await guarded(RESERVE.run(client, [key, spentKey], [id, amount, limit, ttlToMs(ttlMs), BUDGET_EPSILON]));
      return reply === 1;
    },

    async release(key, id) {
      await guarded(client.hdel(key, id));
    },

    poolGet(pool, key) {
      return guarded(client.get(poolKeys(pool).valuePrefix + key));
    },

    async poolPut(pool, entry, maxBytes) {
      const k = poolKeys(pool);
      const args = [entry.key, entry.value, ttlToMs(entry.ttlMs), maxBytes, k.groupPrefix, k.valuePrefix, PRUNE_PER_WRITE, ...entry.groups];
      const [stored, bytes, evicted] = threeIntegers(await guarded(POOL_PUT.run(client, [k.idx, k.meta, k.bytes], args)), "poolPut");
      return { stored: stored === 1, bytes, evicted };
    },

    async poolDrop(pool, group) {
      const k = poolKeys(pool);
      return Number(await guarded(POOL_DROP.run(client, [k.idx, k.meta, k.bytes, k.groupPrefix + group], [k.groupPrefix, k.valuePrefix])));
    },

    async poolBytes(pool) {
      return Math.max(0, Number((await guarded(client.get(poolKeys(pool).bytes))) ?? 0));
    },

    async publish(channel, message) {
      await guarded(client.publish(channel, message));
    },

    subscribe: subscriptions.subscribe,

    async close() {
      await Promise.all([quit(client), subscriptions.close()]);
    },
  };
}

/**
 * Pub/sub over a second connection, created on the first `subscribe`: a subscribed connection cannot run other
 * commands, and most processes never subscribe.
 */
function createSubscriptions(client: Redis, logger: Logger | undefined) {
  const channels = new Map<string, { handlers: Set<Handler>; ready: Promise<void> }>();
  let subscriber: Promise<Redis> | undefined;

  function connectSubscriber(): Promise<Redis> {
    subscriber ??= (async () => {
      // The subscriber keeps its offline queue: ioredis re-subscribes through it after a reconnect.
      const sub = client.duplicate({ lazyConnect: true, enableOfflineQueue: true });
      sub.on("error", connectionErrors(logger, "redis kv: subscriber connection error"));
      sub.on("message", (channel: string, message: string) => {
        for (const handler of channels.get(channel)?.handlers ?? []) {
          try {
            handler(message);
          } catch (error) {
            logger?.error({ err: error, channel }, "redis kv: subscriber threw");
          }
        }
      });
      await connectOrThrow(sub, "REDIS_URL (subscriber)");
      return sub;
    })();
    // A failed attempt is forgotten, so a later subscribe tries again.
    subscriber.catch(() => (subscriber = undefined));
    return subscriber;
  }

  return {
    async subscribe(channel: string, onMessage: Handler): Promise<void> {
      let entry = channels.get(channel);
      if (!entry) {
        // Registered before the first await, so concurrent subscribers of one channel share one SUBSCRIBE.
        const created = {
          handlers: new Set<Handler>(),
          ready: connectSubscriber().then((sub) => sub.subscribe(channel).then(() => undefined)),
        };
        created.ready.catch(() => {
          if (channels.get(channel) === created) channels.delete(channel);
        });
        channels.set(channel, created);
        entry = created;
      }
      entry.handlers.add(onMessage);
      await entry.ready;
    },

    async close(): Promise<void> {
      channels.clear();
      const pending = subscriber;
      subscriber = undefined;
      if (pending) await pending.then(quit, () => undefined);
    },
  };
}

/** Connects, or disconnects (stopping ioredis' background retries) and throws an error that omits the URL. */
/** Connection errors come once per reconnect attempt while Redis is away: one log line per window is enough. */
const LOG_EVERY_MS = 10_000;

/**
 * The `error` listener (unhandled, an `error` event ends the process). Before the first connection it stays quiet:
 * the failed connect rejects with the same reason, and start-up logs one line per attempt (core/ops/store-wait.ts).
 */
function connectionErrors(logger: Logger | undefined, message: string): (error: Error) => void {
  let last = Number.NEGATIVE_INFINITY;
  return function onError(this: Redis, error: Error) {
    lastErrors.set(this, error);
    if (!everConnected.has(this)) return;
    const now = Date.now();
    if (now - last < LOG_EVERY_MS) return;
    last = now;
    logger?.warn({ err: error }, message);
  };
}

/** The last connection error of a client, for the reason of a failed connect ("Connection is closed." says little). */
const lastErrors = new WeakMap<Redis, Error>();
const everConnected = new WeakSet<Redis>();

async function connectOrThrow(client: Redis, what: string): Promise<void> {
  try {
    await client.connect();
    everConnected.add(client);
  } catch (thrown) {
    client.disconnect();
    const error = lastErrors.get(client) ?? thrown;
    const reason = error instanceof Error ? error.message : String(error);
    // A refused or timed-out connection is worth waiting for at start-up; a refused password is not.
    const message = `${what}: cannot connect to Redis (${reason})`;
    throw isRedisOutage(error) ? new StoreUnreachableError("redis", message, { cause: error }) : new Error(message, { cause: error });
  }
}

/** Quits gracefully; when Redis is unreachable, just drops the connection. */
async function quit(client: Redis): Promise<void> {
  try {
    await client.quit();
  } catch {
    client.disconnect();
  }
}

/** Checks a script's `{a, b, c}` integer reply. */
function threeIntegers(reply: unknown, what: string): [number, number, number] {
  if (Array.isArray(reply) && reply.length === 3) {
    const [a, b, c]: unknown[] = reply;
    if (typeof a === "number" && typeof b === "number" && typeof c === "number") return [a, b, c];
  }
  throw new Error(`redis kv: unexpected ${what} script reply`);
}
