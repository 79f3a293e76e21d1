/**
 * The usage ledger: generation records and key spending are written off the hot path in small batched
 * transactions, and flushed on shutdown so nothing is lost on a clean stop.
 */
import type { Logger } from "pino";
import type { Store } from "../store/types.ts";
import type { GenerationRecord } from "../store/types/generations.ts";

export class UsageLedger {
  private queue: GenerationRecord[] = [];
  private readonly pendingByKey = new Map<string, number>();
  private readonly pendingById = new Map<string, GenerationRecord>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private flushing: Promise<void> = Promise.resolve();
  /** Bumped when a write starts; a read that saw it change may have seen the write's spending twice or not at all. */
  private writes = 0;
  private writing = false;

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

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
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
      await this.store.generations.insertMany(batch);
      await this.store.keys.addUsage([...byKey].map(([hash, amount]) => ({ hash, amount })));
      for (const g of batch) this.pendingById.delete(g.id);
      for (const [hash, amount] of byKey) {
        const left = (this.pendingByKey.get(hash) ?? 0) - amount;
        if (left > 1e-12) this.pendingByKey.set(hash, left);
        else this.pendingByKey.delete(hash);
      }
    } catch (error) {
      // Keep the batch for the next tick rather than lose billing data.
      this.queue = batch.concat(this.queue);
      this.logger.error({ err: error, records: batch.length }, "usage ledger flush failed; will retry");
    } finally {
      this.writing = false;
    }
  }
}
