/**
 * The in-process kv: exact for one process, and the reference semantics the Redis kv mirrors.
 * Every operation is synchronous inside its promise, so each is atomic with respect to the others.
 */
import type { Logger } from "pino";
import { assertFinite, assertNonNegative, ttlToMs } from "./args.ts";
import { fitsBudget } from "./budget.ts";
import { planGcra, stepGcra, toRateLimitResult } from "./gcra.ts";
import type { Kv } from "./kv.ts";
import { MemoryPools } from "./memory-pool.ts";

/** The time source; `deps.clock` fits it, tests pass a fake. */
export interface KvClock {
  /** Unix milliseconds. */
  now(): number;
}

/** Options of {@link createMemoryKv}. */
export interface MemoryKvOptions {
  /** How often expired entries are swept out; lazy expiry on read keeps results exact regardless. */
  sweepIntervalMs?: number;
  /** Receives errors thrown by subscribers (which must not break the publisher). */
  logger?: Logger;
}

/** The memory kv, plus introspection for tests. */
export interface MemoryKv extends Kv {
  /** Drops every expired value and reservation now (the timer does this periodically). */
  sweep(): void;
  /** Keys currently held, expired or not (values plus reservation sets). */
  readonly size: number;
}

interface Entry {
  value: string;
  /** Unix ms, or null for no expiry. */
  expiresAt: number | null;
}

interface Reservation {
  amount: number;
  expiresAt: number;
}

const DEFAULT_SWEEP_INTERVAL_MS = 30_000;

/** Creates a memory kv; `clock` defaults to the wall clock. */
export function createMemoryKv(clock: KvClock = { now: () => Date.now() }, options: MemoryKvOptions = {}): MemoryKv {
  const entries = new Map<string, Entry>();
  const reservations = new Map<string, Map<string, Reservation>>();
  const channels = new Map<string, Set<(message: string) => void>>();
  const pools = new MemoryPools();
  let closed = false;

  // unref'd: an idle kv must not keep the process alive.
  const timer = setInterval(sweep, options.sweepIntervalMs ?? DEFAULT_SWEEP_INTERVAL_MS);
  timer.unref();

  function ensureOpen(): void {
    if (closed) throw new Error("kv: closed");
  }

  /** The entry at `key` unless expired (an expired one is removed on the way). */
  function live(key: string, now = clock.now()): Entry | undefined {
    const entry = entries.get(key);
    if (entry && entry.expiresAt !== null && entry.expiresAt <= now) {
      entries.delete(key);
      return undefined;
    }
    return entry;
  }

  /** The unexpired reservations at `key`, pruning expired ones. */
  function liveReservations(key: string, now: number): Map<string, Reservation> {
    let held = reservations.get(key);
    if (!held) {
      held = new Map();
      reservations.set(key, held);
    }
    for (const [id, r] of held) if (r.expiresAt <= now) held.delete(id);
    return held;
  }

  function sweep(): void {
    const now = clock.now();
    for (const key of entries.keys()) live(key, now);
    for (const key of reservations.keys()) {
      if (liveReservations(key, now).size === 0) reservations.delete(key);
    }
  }

  const kv: MemoryKv = {
    sweep,
    get size() {
      return entries.size + reservations.size;
    },

    async get(key) {
      ensureOpen();
      return live(key)?.value ?? null;
    },

    async set(key, value, ttlMs) {
      ensureOpen();
      // Like Redis SET: a value set without a TTL drops any previous expiry.
      entries.set(key, { value, expiresAt: ttlMs === undefined ? null : clock.now() + ttlToMs(ttlMs) });
    },

    async setIfAbsent(key, value, ttlMs) {
      ensureOpen();
      const expiresAt = clock.now() + ttlToMs(ttlMs);
      if (live(key)) return false;
      entries.set(key, { value, expiresAt });
      return true;
    },

    async del(key) {
      ensureOpen();
      entries.delete(key);
      reservations.delete(key);
    },

    async incrBy(key, amount, ttlMs) {
      ensureOpen();
      assertFinite(amount, "amount");
      const ttl = ttlMs === undefined ? undefined : ttlToMs(ttlMs);
      const now = clock.now();
      const entry = live(key, now);
      const current = entry ? parseNumber(entry.value, key) : 0;
      const next = current + amount;
      // Like INCRBYFLOAT: an existing expiry survives unless a new TTL is given.
      entries.set(key, { value: String(next), expiresAt: ttl === undefined ? (entry?.expiresAt ?? null) : now + ttl });
      return next;
    },

    async rateLimit(key, limit, periodMs, cost = 1) {
      ensureOpen();
      const plan = planGcra(limit, periodMs, cost);
      const now = clock.now();
      const nowUs = Math.round(now * 1000);
      const stored = live(key, now);
      const step = stepGcra(plan, stored ? Number(stored.value) : null, nowUs);
      if (step.allowed && plan.incrementUs > 0) {
        // The state is worthless once the TAT has passed; expire it then (plus 1 ms, as the Lua script does).
        entries.set(key, { value: String(step.newTatUs), expiresAt: now + Math.ceil(step.backlogUs / 1000) + 1 });
      }
      return toRateLimitResult(plan, step);
    },

    async reserve(key, spentKey, id, amount, limit, ttlMs) {
      ensureOpen();
      assertNonNegative(amount, "amount");
      assertFinite(limit, "limit");
      const ttl = ttlToMs(ttlMs);
      const now = clock.now();
      const held = liveReservations(key, now);
      let reserved = 0;
      // Re-reserving an id replaces its amount rather than adding to it.
      for (const [heldId, r] of held) if (heldId !== id) reserved += r.amount;
      const spentEntry = live(spentKey, now);
      const spent = spentEntry ? Number(spentEntry.value) || 0 : 0;
      if (!fitsBudget(spent, reserved, amount, limit)) return false;
      held.set(id, { amount, expiresAt: now + ttl });
      return true;
    },

    async release(key, id) {
      ensureOpen();
      const held = reservations.get(key);
      held?.delete(id);
      if (held?.size === 0) reservations.delete(key);
    },

    async poolGet(pool, key) {
      ensureOpen();
      return pools.get(pool, key, clock.now());
    },

    async poolPut(pool, entry, maxBytes) {
      ensureOpen();
      return pools.put(pool, { ...entry, ttlMs: ttlToMs(entry.ttlMs) }, maxBytes, clock.now());
    },

    async poolDrop(pool, group) {
      ensureOpen();
      return pools.drop(pool, group);
    },

    async poolBytes(pool) {
      ensureOpen();
      return pools.bytes(pool, clock.now());
    },

    async publish(channel, message) {
      ensureOpen();
      for (const handler of channels.get(channel) ?? []) {
        // Delivered asynchronously, as over Redis: a subscriber never runs inside the publisher's call stack.
        queueMicrotask(() => {
          try {
            handler(message);
          } catch (error) {
            options.logger?.error({ err: error, channel }, "kv: subscriber threw");
          }
        });
      }
    },

    async subscribe(channel, onMessage) {
      ensureOpen();
      let handlers = channels.get(channel);
      if (!handlers) {
        handlers = new Set();
        channels.set(channel, handlers);
      }
      handlers.add(onMessage);
    },

    async close() {
      closed = true;
      clearInterval(timer);
      entries.clear();
      reservations.clear();
      pools.clear();
      channels.clear();
    },
  };
  return kv;
}

/** A stored value as a number, or the error INCRBYFLOAT would give. */
function parseNumber(value: string, key: string): number {
  const n = value.trim() === "" ? Number.NaN : Number(value);
  if (!Number.isFinite(n)) throw new Error(`kv: value at ${key} is not a valid float`);
  return n;
}
