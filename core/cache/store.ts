/**
 * Reading and writing cached answers in the kv's cache pool (README "Response cache"). A kv that cannot be reached
 * makes the request a miss and leaves its answer unkept (one error line): the cache never fails a request. Writes run
 * after the answer went out, off the request's path.
 */
import type { CacheConfig } from "../config/cache.ts";
import type { Deps } from "../deps.ts";
import type { CanonicalResponse } from "../model/response.ts";
import { incBy } from "../observe/metrics/bound.ts";
import { decodeEntry, encodeEntry, type CacheEntry } from "./entry.ts";
import { CACHE_POOL, type CacheKey } from "./key.ts";

export async function readEntry(deps: Deps, key: CacheKey): Promise<CacheEntry | undefined> {
  let text: string | null;
  try {
    text = await deps.kv.poolGet(CACHE_POOL, key.key);
  } catch (err) {
    deps.logger.error({ err }, "response cache: the kv cannot be read (answering as a miss)");
    return undefined;
  }
  return text === null ? undefined : decodeEntry(text);
}

/** Keeps `response` for `ttlSeconds` unless its stored form is larger than `cache.max_entry_bytes`. */
export function writeEntry(deps: Deps, settings: CacheConfig, key: CacheKey, response: CanonicalResponse, cost: number, ttlSeconds: number): void {
  const text = encodeEntry(response, cost, deps.clock.now(), ttlSeconds);
  // Characters first: a string cannot be larger in UTF-8 than three bytes a UTF-16 unit.
  if (text.length > settings.maxEntryBytes || (text.length * 3 > settings.maxEntryBytes && Buffer.byteLength(text) > settings.maxEntryBytes)) return;
  const entry = { key: key.key, value: text, ttlMs: ttlSeconds * 1000, groups: key.groups };
  deps.kv.poolPut(CACHE_POOL, entry, settings.maxTotalBytes).then(
    (put) => {
      const families = deps.metrics?.families;
      if (families && put.stored) incBy(families.cacheWrittenBytes, {}, put.bytes);
      if (families && put.evicted > 0) incBy(families.cacheEvictions, {}, put.evicted);
    },
    (err: unknown) => deps.logger.error({ err }, "response cache: an answer could not be kept (the kv cannot be written)"),
  );
}

/** Drops a workspace's entries (of one model, or all); resolves with how many. */
export function dropEntries(deps: Deps, group: string): Promise<number> {
  return deps.kv.poolDrop(CACHE_POOL, group);
}
