/**
 * The `cache` section of the config file (README "Response cache"): how long answers are kept, how big they and the
 * whole cache may be, what a request may ask of it and what a hit costs. Kept apart from file-schema.ts like
 * documents.ts; every default is written here.
 */
import { Type, type Static } from "@sinclair/typebox";
import { Defaulted, deepFreeze, resolveDefaults } from "./defaults.ts";

const MIB = 1024 * 1024;
/** The peer's bound on `X-…-Cache-TTL` (a day). */
const DAY_SECONDS = 86_400;

export const CacheFileSchema = Type.Object(
  {
    /** TTL of an entry whose request, preset or key names none. */
    default_ttl_seconds: Defaulted(Type.Integer({ minimum: 1, maximum: DAY_SECONDS }), 300),
    /** The longest TTL a request (`X-Service-Cache-TTL`), preset or key may ask for; longer is a 400. */
    max_ttl_seconds: Defaulted(Type.Integer({ minimum: 1, maximum: 30 * DAY_SECONDS }), DAY_SECONDS),
    /** An answer whose stored form is larger is not kept. */
    max_entry_bytes: Defaulted(Type.Integer({ minimum: 1024 }), MIB),
    /** All entries together (every workspace, every node: the kv's one pool); past it the entries nearest expiry go. */
    max_total_bytes: Defaulted(Type.Integer({ minimum: 1024 }), 64 * MIB),
    /** Requests sampled hotter than this are not cached unless forced (`X-Service-Cache: force`). */
    max_temperature: Defaulted(Type.Number({ minimum: 0 }), 1),
    /** What a hit costs, as a share of what the answer cost when it was made (0: nothing). */
    read_price_factor: Defaulted(Type.Number({ minimum: 0, maximum: 1 }), 0),
  },
  { additionalProperties: false },
);

/** Parsed `cache` section. */
export interface CacheConfig {
  defaultTtlSeconds: number;
  maxTtlSeconds: number;
  maxEntryBytes: number;
  maxTotalBytes: number;
  maxTemperature: number;
  readPriceFactor: number;
}

export function toCacheConfig(section: Static<typeof CacheFileSchema> | undefined): CacheConfig {
  const c = resolveDefaults(CacheFileSchema, section);
  return {
    defaultTtlSeconds: c.default_ttl_seconds,
    maxTtlSeconds: c.max_ttl_seconds,
    maxEntryBytes: c.max_entry_bytes,
    maxTotalBytes: c.max_total_bytes,
    maxTemperature: c.max_temperature,
    readPriceFactor: c.read_price_factor,
  };
}

/** What a config without a `cache` section gets. */
export const DEFAULT_CACHE: CacheConfig = deepFreeze(toCacheConfig(undefined));

/** The gateway's cache settings (hand-built configs have none: the defaults). */
export function cacheConfigOf(config: { cache?: CacheConfig }): CacheConfig {
  return config.cache ?? DEFAULT_CACHE;
}
