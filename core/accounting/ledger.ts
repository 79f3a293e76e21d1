/**
 * The usage ledger: generation records and key spending are written off the hot path in small batched
 * transactions, and flushed on shutdown so nothing is lost on a clean stop.
 *
 * While the database is unreachable (README "Operations: store outages") what was served stays queued here — and
 * counted by `pendingUsage`, so credit windows see it — and is written by the first flush after the store is back.
 * Each write stores the records and charges their keys in one idempotent transaction (`generations.bill`), so a flush
 * retried after a write whose outcome was unknown charges nothing twice.
 */
import type { Logger } from "pino";
import { isUnavailable } from "../ops/unavailable.ts";
import type { Store } from "../store/types.ts";
import type { GenerationRecord } from "../store/types/generations.ts";

/** How long `close()` keeps retrying a failing write before it gives up and logs what is left. */
const CLOSE_RETRY_MS = 5_000;

export class UsageLedger {
  private queue: GenerationRecord[] = [];
  private readonly pendingByKey = new Map<string, number>();
  private readonly pendingById = new Map<string, GenerationRecord>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private flushing: Promise<void> = Promise.resolve();
  /** Bumped when a write starts; a read that saw it change may have seen the write's spending twice or not at all. */
  private writes = 0;
  private writing = false;
  /** Since when writes fail (one log line per failure spell, one when it ends). */
  private failingSince: number | undefined;

  constructor(
    private readonly store: Store,
    private readonly logger: Logger,
    private readonly intervalMs = 200,
  ) {}

  start(): void {
    this.timer ??= setInterval(() => void this.flush(), this.intervalMs);
    this.timer.unref?.();
  }

  /** Queues one generation; cheap and synchronous on the request path. */
  record(generation: GenerationRecord): void {
    this.queue.push(generation);
    this.pendingById.set(generation.id, generation);
    if (generation.cost > 0) this.pendingByKey.set(generation.keyHash, (this.pendingByKey.get(generation.keyHash) ?? 0) + generation.cost);
  }

  /** Spending recorded but not yet written, so `GET /key` is exact right after a request. */
  pendingUsage(keyHash: string): number {
    return this.pendingByKey.get(keyHash) ?? 0;
  }

  /** The part of `pendingUsage` from generations created at or after `since` (Unix ms): a period's unflushed spending. */
  pendingUsageSince(keyHash: string, since: number): number {
    if (!this.pendingByKey.has(keyHash)) return 0;
    let sum = 0;
    for (const g of this.pendingById.values()) if (g.keyHash === keyHash && g.createdAt >= since) sum += g.cost;
    return sum;
  }

  /** Unflushed BYOK cost (list price) of a key's generations created at or after `since`. */
  pendingByokSince(keyHash: string, since: number): number {
    let sum = 0;
    for (const g of this.pendingById.values()) if (g.keyHash === keyHash && g.isByok && g.createdAt >= since) sum += g.byokCost ?? 0;
    return sum;
  }

  /** Unflushed spending of a workspace's generations created at or after `since` (a workspace budget's seed). */
  pendingWorkspaceSince(workspaceId: string, since: number): number {
    let sum = 0;
    for (const g of this.pendingById.values()) if (g.workspaceId === workspaceId && g.createdAt >= since) sum += g.cost;
    return sum;
  }

  /** Records not yet written (the metrics' view of a database outage). */
  pendingCount(): number {
    return this.pendingById.size;
  }

  pendingGeneration(id: string): GenerationRecord | undefined {
    return this.pendingById.get(id);
  }

  /**
   * Runs a store read that will be combined with `pendingUsage`, so that no write of this ledger lands between
   * the two: otherwise a batch could be counted twice (already stored and still pending) or not at all. Waits for
   * a write in progress, and reads again if one started meanwhile (bounded: after a few tries the last read wins).
   */
  async readConsistently<T>(read: () => Promise<T>): Promise<T> {
    let value!: T;
    for (let attempt = 0; attempt < 5; attempt++) {
      if (this.writing) await this.flushing;
      const before = this.writes;
      value = await read();
      if (!this.writing && this.writes === before) return value;
    }
    return value;
  }

  /** Writes everything queued so far; concurrent calls are serialised. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.writeBatch());
    return this.flushing;
  }

  /**
   * Stops the timer and writes what is left, retrying for up to `retryMs` while the store fails; whatever still
   * could not be written is logged in full (one error line with every record), the only copy left.
   */
  async close(retryMs = CLOSE_RETRY_MS): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    const deadline = Date.now() + retryMs;
    await this.flush();
    while (this.queue.length > 0 && Date.now() < deadline) {
      await Bun.sleep(Math.min(this.intervalMs, Math.max(0, deadline - Date.now())));
      await this.flush();
    }
    if (this.queue.length > 0) {
      this.logger.error({ records: this.queue.length, unwritten: this.queue }, "usage ledger: records could not be written before exit (the store is unavailable)");
    }
  }

  private async writeBatch(): Promise<void> {
    if (this.queue.length === 0) return;
    const batch = this.queue;
    this.queue = [];
    this.writing = true;
    this.writes++;
    const byKey = new Map<string, number>();
    for (const g of batch) if (g.cost > 0) byKey.set(g.keyHash, (byKey.get(g.keyHash) ?? 0) + g.cost);
    try {
      await this.store.generations.bill(batch);
      this.recovered(batch.length);
      for (const g of batch) this.pendingById.delete(g.id);
      for (const [hash, amount] of byKey) {
        const left = (this.pendingByKey.get(hash) ?? 0) - amount;
        if (left > 1e-12) this.pendingByKey.set(hash, left);
        else this.pendingByKey.delete(hash);
      }
    } catch (error) {
      // Keep the batch for the next tick rather than lose billing data.
      this.queue = batch.concat(this.queue);
      this.failed(error);
    } finally {
      this.writing = false;
    }
  }

  private failed(error: unknown): void {
    if (this.failingSince !== undefined) return;
    this.failingSince = Date.now();
    const level = isUnavailable(error) ? "warn" : "error";
    this.logger[level]({ err: error, records: this.queue.length }, "usage ledger flush failed; records are kept and written once the store takes them");
  }

  private recovered(written: number): void {
    if (this.failingSince === undefined) return;
    this.logger.info({ failing_ms: Date.now() - this.failingSince, records: written }, "usage ledger: kept records written");
    this.failingSince = undefined;
  }
}
