/**
 * Whether the database can be reached (README "Operations: store outages"). The first operation that fails because
 * the database is unreachable marks it down: from then on every operation fails at once with the 503 (no request
 * waits on a connect time-out or a frozen server), and a probe on a fresh connection runs every `probeEveryMs`
 * until one succeeds. Up again, waiters (the batch worker, the ledger) resume at once. One log line per outage and
 * one on recovery, however many requests failed in between.
 */
import type { Logger } from "pino";
import { storeUnavailable } from "../ops/unavailable.ts";
import { isUnreachable } from "./reachability.ts";

/** How often a down store is probed: recovery is seen within this (plus the probe's own round trip). */
const PROBE_EVERY_MS = 250;

export interface StoreAvailabilityOptions {
  /** One round trip on a fresh connection; rejects while the database is unreachable (or not writable). */
  probe: () => Promise<void>;
  logger?: Logger;
  probeEveryMs?: number;
}

/** The database's reachability, shared by every repository of one store. */
export class StoreAvailability {
  private down: { since: number; error: unknown } | undefined;
  private waiters = new Set<() => void>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private closed = false;

  constructor(private readonly options: StoreAvailabilityOptions) {}

  /** False from the first unreachable error until a probe succeeds. */
  get up(): boolean {
    return this.down === undefined;
  }

  /** Throws the 503 at once while the database is down (called before every connection is acquired). */
  check(): void {
    if (this.down) throw storeUnavailable("database", this.down.error);
  }

  /**
   * Classifies a failed operation's error: an unreachable database is marked down and answered with the 503; any
   * other error (a bad query, a constraint) is returned unchanged.
   */
  failed(error: unknown): unknown {
    if (!isUnreachable(error)) return error;
    this.markDown(error);
    return storeUnavailable("database", error);
  }

  /** Resolves once the database is up (at once when it is); rejects when `signal` aborts first. */
  whenUp(signal?: AbortSignal): Promise<void> {
    if (!this.down) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const done = () => {
        this.waiters.delete(done);
        signal?.removeEventListener("abort", abort);
        resolve();
      };
      const abort = () => {
        this.waiters.delete(done);
        reject(signal?.reason);
      };
      if (signal?.aborted) return abort();
      this.waiters.add(done);
      signal?.addEventListener("abort", abort, { once: true });
    });
  }

  /** Stops probing (the store is closing) and lets every waiter go: their next attempt fails as closed. */
  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    for (const waiter of [...this.waiters]) waiter();
  }

  private markDown(error: unknown): void {
    if (this.down || this.closed) return;
    this.down = { since: Date.now(), error };
    this.options.logger?.warn({ err: error, store: "database" }, "store: the database cannot be reached; requests answer 503 until it is back");
    this.scheduleProbe(0);
  }

  private scheduleProbe(delayMs: number): void {
    if (this.closed) return;
    this.timer = setTimeout(() => void this.probeOnce(), delayMs);
    this.timer.unref?.();
  }

  private async probeOnce(): Promise<void> {
    try {
      await this.options.probe();
    } catch {
      this.scheduleProbe(this.options.probeEveryMs ?? PROBE_EVERY_MS);
      return;
    }
    const down = this.down;
    this.down = undefined;
    if (down) this.options.logger?.info({ store: "database", down_ms: Date.now() - down.since }, "store: the database is reachable again");
    for (const waiter of [...this.waiters]) waiter();
  }
}
