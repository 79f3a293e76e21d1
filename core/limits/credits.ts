/**
 * Credit limits, exact under concurrency across every gateway process.
 *
 * Per key and credit window the kv holds a spent counter (`gw:credits:spent:<key>:<window>`, USD) and a set of
 * reservations (`gw:credits:held:…`). Before the upstream call a request reserves its worst case atomically:
 * granted only while spent + reserved + worst case ≤ limit (one Lua script on Redis). After the call accounting
 * commits: the actual cost is added to the counter FIRST and the reservation released SECOND, so at every instant
 * spent + reserved covers what was spent — concurrent requests can never push spending past the limit. A request
 * that dies holding a reservation leaves it to expire (`reservation_ttl_ms`).
 *
 * Seeding: the counter is created on first use in a window from the store (the generations of the window, plus this
 * process's unflushed ledger), with set-if-absent so racing processes agree, and with a TTL a day past the window's
 * end. Every reservation checks, in the same round trip, that the counter exists, and a commit increments only an
 * existing counter: if the kv lost it (Redis restarted without persistence), the next reservation re-seeds it from
 * the store, which by then includes every flushed cost, instead of restarting from zero.
 */
import type { Logger } from "pino";
import type { UsageLedger } from "../accounting/ledger.ts";
import type { LimitsConfig } from "../config/routing-limits.ts";
import type { Clock } from "../deps.ts";
import type { Kv } from "../kv/kv.ts";
import type { Store } from "../store/types.ts";
import type { ApiKeyRecord } from "../store/types/keys.ts";
import { windowOf, type CreditWindow } from "./windows.ts";

/** A granted reservation, put on the request's bill (core/accounting/bill.ts), which settles it exactly once. */
export interface CreditHold {
  /** USD held now (grows with each `extend`). */
  readonly amount: number;
  /**
   * Holds `extra` USD more for the same request (another model turn, a plugin's priced work), atomically against
   * the limit like the first reservation; false when it does not fit (the hold is then unchanged).
   */
  extend(extra: number): Promise<boolean>;
  /** Adds the actual cost to the window, then releases the reservation. */
  commit(cost: number): Promise<void>;
  /** Releases without spending; a no-op once committed. */
  release(): Promise<void>;
}

export type ReserveResult = { granted: true; hold: CreditHold } | { granted: false; remaining: number };

const DAY_MS = 86_400_000;
/** The lifetime window's counter is refreshed on every commit and re-seeded after a month of silence. */
const LIFETIME_TTL_MS = 30 * DAY_MS;

export class CreditLedger {
  constructor(
    private readonly kv: Kv,
    // Only these two reads (a guardrail budget supplies its own: core/guardrails/budgets.ts).
    private readonly store: { keys: Pick<Store["keys"], "findByHash">; generations: Pick<Store["generations"], "costSince"> },
    private readonly ledger: Pick<UsageLedger, "pendingUsage" | "pendingUsageSince" | "readConsistently">,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly settings: LimitsConfig,
  ) {}

  /**
   * Reserves `amount` USD for request `id` against the key's limit. Rejects when the kv is unreachable.
   * The counter's existence is read in the same round trip as the reservation (two commands sent back to back on
   * one connection run in order); when it is missing, the reservation — made against zero — is undone, the counter
   * seeded from the store, and the reservation made again.
   */
  async reserve(record: ApiKeyRecord & { limit: number }, amount: number, id: string): Promise<ReserveResult> {
    const now = this.clock.now();
    const window = windowOf(record.limitReset, now);
    const keys = keysOf(record.hash, window);
    const ttl = this.settings.reservationTtlMs;
    let [spent, granted] = await Promise.all([this.kv.get(keys.spent), this.kv.reserve(keys.held, keys.spent, id, amount, record.limit, ttl)]);
    if (spent === null) {
      if (granted) await this.kv.release(keys.held, id);
      spent = String(await this.storeSpent(record, window));
      await this.kv.setIfAbsent(keys.spent, spent, ttlOf(window, now));
      [spent, granted] = await Promise.all([this.kv.get(keys.spent), this.kv.reserve(keys.held, keys.spent, id, amount, record.limit, ttl)]);
    }
    if (!granted) return { granted: false, remaining: Math.max(0, record.limit - Number(spent ?? 0)) };
    return { granted: true, hold: this.hold(keys, window, id, amount, record.limit) };
  }

  /** USD spent by the key in its current window: the kv counter when there is one, else the store. */
  async spentInWindow(record: ApiKeyRecord): Promise<number> {
    const window = windowOf(record.limitReset, this.clock.now());
    try {
      const value = await this.kv.get(keysOf(record.hash, window).spent);
      if (value !== null) return Number(value);
    } catch (err) {
      this.logger.warn({ err }, "limits: credit counter unreadable; reporting spending from the store");
    }
    return this.storeSpent(record, window);
  }

  private hold(keys: { spent: string; held: string }, window: CreditWindow, id: string, amount: number, limit: number): CreditHold {
    let settled = false;
    let held = amount;
    // Every kv step of one hold runs after the previous one: two concurrent extends (a fan-out's turns) each
    // replace the reservation with their own total, so one computed from a stale total would undo the other; and
    // an extend still in flight when the hold settles must not re-create the reservation after its release.
    let queue: Promise<unknown> = Promise.resolve();
    const serial = <T>(step: () => Promise<T>): Promise<T> => {
      const run = queue.then(step);
      queue = run.catch(() => undefined);
      return run;
    };
    const ttl = () => ttlOf(window, this.clock.now());
    return {
      get amount() {
        return held;
      },
      extend: (extra) =>
        serial(async () => {
          if (settled) return false;
          // A grant under the same id replaces the reservation: the new total is checked against the limit.
          if (!(await this.kv.reserve(keys.held, keys.spent, id, held + extra, limit, this.settings.reservationTtlMs))) return false;
          held += extra;
          return true;
        }),
      commit: (cost) => {
        if (settled) return Promise.resolve();
        settled = true;
        return serial(async () => {
          try {
            // Only into an existing counter: a lost one is re-seeded from the store, which then includes this cost.
            if (cost > 0 && (await this.kv.get(keys.spent)) !== null) await this.kv.incrBy(keys.spent, cost, ttl());
          } finally {
            await this.kv.release(keys.held, id);
          }
        });
      },
      release: () => {
        if (settled) return Promise.resolve();
        settled = true;
        return serial(() => this.kv.release(keys.held, id));
      },
    };
  }

  /**
   * What the store knows the key spent in the window, plus this process's not yet flushed spending of that window.
   * The store is read with no ledger write landing in between, and the pending part right after it (synchronously):
   * a flush during the read would otherwise be counted twice — stored and still pending — and a counter seeded
   * from that would stay wrong for the whole window.
   */
  private async storeSpent(record: ApiKeyRecord, window: CreditWindow): Promise<number> {
    if (window.end === null) {
      const fresh = await this.ledger.readConsistently(() => this.store.keys.findByHash(record.hash));
      return (fresh ?? record).usage + this.ledger.pendingUsage(record.hash);
    }
    const stored = await this.ledger.readConsistently(() => this.store.generations.costSince(record.hash, window.start));
    return stored + this.ledger.pendingUsageSince(record.hash, window.start);
  }
}

function keysOf(hash: string, window: CreditWindow): { spent: string; held: string } {
  return { spent: `gw:credits:spent:${hash}:${window.id}`, held: `gw:credits:held:${hash}:${window.id}` };
}

/** Counters outlive their window by a day, so a request straddling midnight still commits into its own window. */
function ttlOf(window: CreditWindow, now: number): number {
  return window.end === null ? LIFETIME_TTL_MS : Math.max(1, window.end - now + DAY_MS);
}
