/** Opens the kv named by `REDIS_URL`: Redis when set, the in-process memory kv otherwise. */
import type { Logger } from "pino";
import type { Kv } from "./kv.ts";
import { createMemoryKv } from "./memory.ts";

/** Returns the Redis kv for a non-empty `redisUrl` (rejecting if unreachable), else a memory kv. */
export async function openKv(redisUrl: string | undefined, logger?: Logger): Promise<Kv> {
  const url = redisUrl?.trim();
  if (!url) return createMemoryKv(undefined, { logger });
  if (!/^rediss?:\/\//i.test(url)) throw new Error("REDIS_URL: expected a redis:// or rediss:// URL");
  // Loaded only when used: ioredis costs memory and start-up time on the embedded defaults.
  const { createRedisKv } = await import("./redis.ts");
  return createRedisKv(url, logger);
}
