/**
 * The kv interface: TTL values, counters, locks, rate windows and atomic reservations.
 * A memory implementation serves one process; the ioredis one (atomic Lua where it counts) serves many.
 * Nothing outside `core/kv/` touches Redis.
 */
export interface RateLimitResult {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Milliseconds until the limit is fully reset. */
  resetMs: number;
  /** Milliseconds to wait before a retry can succeed (0 when allowed). */
  retryAfterMs: number;
}

/** One value of a byte-bounded pool (the response cache): how long it lives and the groups it can be dropped by. */
export interface PoolEntry {
  key: string;
  value: string;
  ttlMs: number;
  groups: readonly string[];
}

/** What `poolPut` did: whether the value is stored, its size in bytes, and how many entries went to make room. */
export interface PoolPut {
  stored: boolean;
  bytes: number;
  evicted: number;
}

export interface Kv {
  get(key: string): Promise<string | null>;
  /** Sets a value; with `ttlMs` it expires. */
  set(key: string, value: string, ttlMs?: number): Promise<void>;
  /** Sets only when absent (locks, sticky sessions); true when this call set it. */
  setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean>;
  del(key: string): Promise<void>;
  /** Atomic float increment; creates the key at 0. With `ttlMs`, (re)sets its expiry. Returns the new value. */
  incrBy(key: string, amount: number, ttlMs?: number): Promise<number>;
  /**
   * GCRA rate limit: `limit` units per `periodMs`, taking `cost` units (default 1) atomically.
   * Exact under concurrency: one Lua script on Redis, synchronous on memory.
   */
  rateLimit(key: string, limit: number, periodMs: number, cost?: number): Promise<RateLimitResult>;
  /**
   * Atomic budget reservation: adds `amount` to the reservation total at `key` only when
   * `spent + reserved + amount <= limit` (`spent` read from `spentKey`). The reservation itself is held under
   * `key:<id>` with `ttlMs`, so one left by a crashed request expires. Returns whether it was granted.
   */
  reserve(key: string, spentKey: string, id: string, amount: number, limit: number, ttlMs: number): Promise<boolean>;
  /** Releases a reservation made by `reserve` (idempotent). */
  release(key: string, id: string): Promise<void>;
  /**
   * Byte-bounded pools of TTL'd values (the response cache, core/cache/). `poolPut` stores a value (replacing the
   * key's previous one) only when its UTF-8 size is at most `maxBytes`; to keep the pool's total within `maxBytes` it
   * first drops the expired entries, then the entries nearest their expiry, atomically (one Lua script on Redis).
   */
  poolGet(pool: string, key: string): Promise<string | null>;
  poolPut(pool: string, entry: PoolEntry, maxBytes: number): Promise<PoolPut>;
  /** Drops every entry of `group`; resolves with how many. */
  poolDrop(pool: string, group: string): Promise<number>;
  /** The bytes the pool's live entries hold (expired ones not yet dropped may still count). */
  poolBytes(pool: string): Promise<number>;
  /** Publishes a message to every process subscribed to `channel` (key revocation, cache busting). */
  publish(channel: string, message: string): Promise<void>;
  subscribe(channel: string, onMessage: (message: string) => void): Promise<void>;
  close(): Promise<void>;
}
