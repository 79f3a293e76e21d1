/**
 * The batch worker (ARCHITECTURE §5 "Workers"; issue 6 "Nothing is lost or done twice"): one per gateway process.
 *
 * Each tick it advances batch statuses (lifecycle.ts), then claims pending items atomically under a lease and runs
 * them through the pipeline, at most `concurrency` at once in this process and `perBatchConcurrency` per batch.
 * While an item runs its lease is renewed; if the process dies the lease runs out and any worker reclaims the item.
 * An item ends through a conditional update that only its current claimer can make, so it ends exactly once —
 * a request interrupted mid-flight may be sent upstream again, a finished one never is.
 */
import type { BatchesConfig } from "../config/types.ts";
import type { Deps } from "../deps.ts";
import type { BatchItemRecord, BatchRecord } from "../store/types/batches.ts";
import { discountedDeps } from "./discount.ts";
import { runItem } from "./execute.ts";
import { advanceBatches } from "./lifecycle.ts";

/** How often a worker deletes results past retention. */
const PURGE_EVERY_MS = 60_000;

interface Running {
  batchId: string;
  controller: AbortController;
  done: Promise<void>;
}

/** Runs batches in the background of one gateway process. */
export class BatchWorker {
  /** Names this process's claims; a restarted process is a new worker (its old claims simply time out). */
  readonly id: string;
  private readonly runDeps: Deps;
  private readonly running = new Map<string, Running>();
  private readonly perBatch = new Map<string, number>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private renewTimer: ReturnType<typeof setInterval> | undefined;
  private ticking: Promise<void> | undefined;
  private again = false;
  private stopped = true;
  private lastPurge = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly deps: Deps,
    private readonly settings: BatchesConfig,
  ) {
    this.id = deps.ids.id("worker-");
    this.runDeps = discountedDeps(deps, settings.discount);
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.renewTimer = setInterval(() => void this.renew(), Math.max(50, Math.floor(this.settings.leaseMs / 3)));
    this.renewTimer.unref?.();
    this.wake();
  }

  /** Runs a tick soon (new work was submitted, or a slot freed up); ticks never overlap. */
  wake(): void {
    if (this.stopped) return;
    if (this.ticking) {
      this.again = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.ticking = this.tick().finally(() => {
      this.ticking = undefined;
      if (this.stopped) return;
      if (this.again) {
        this.again = false;
        this.wake();
        return;
      }
      this.timer = setTimeout(() => this.wake(), this.settings.pollIntervalMs);
      this.timer.unref?.();
    });
  }

  /** Items this process is running now (the idle trimmer waits for them, like for open streams). */
  get runningItems(): number {
    return this.running.size;
  }

  /** Stops claiming, gives running items back (they run again elsewhere or after restart) and waits for them. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.renewTimer) clearInterval(this.renewTimer);
    await this.ticking;
    for (const run of this.running.values()) run.controller.abort();
    await Promise.all([...this.running.values()].map((run) => run.done));
  }

  /** Items running in this process now. */
  get load(): number {
    return this.running.size;
  }

  private async tick(): Promise<void> {
    try {
      const now = this.deps.clock.now();
      const purge = now - this.lastPurge >= PURGE_EVERY_MS;
      if (purge) this.lastPurge = now;
      await advanceBatches(this.deps, now, purge);
      await this.fill();
    } catch (error) {
      // A database hiccup must not kill the worker: the next tick retries.
      this.deps.logger.error({ err: error, worker: this.id }, "batch worker tick failed");
    }
  }

  /** Claims as many items as there are free slots, oldest batch first, at most `perBatchConcurrency` per batch. */
  private async fill(): Promise<void> {
    let free = this.settings.concurrency - this.running.size;
    if (free <= 0) return;
    for (const batch of await this.deps.store.batches.byStatus(["in_progress"], 100)) {
      if (this.stopped || free <= 0) return;
      const room = Math.min(free, this.settings.perBatchConcurrency - (this.perBatch.get(batch.id) ?? 0));
      if (room <= 0) continue;
      const items = await this.deps.store.batches.claim(batch.id, this.id, room, this.deps.clock.now(), this.settings.leaseMs);
      for (const item of items) this.launch(batch, item);
      free -= items.length;
    }
  }

  private launch(batch: BatchRecord, item: BatchItemRecord): void {
    const controller = new AbortController();
    this.perBatch.set(batch.id, (this.perBatch.get(batch.id) ?? 0) + 1);
    const done = this.execute(batch, item, controller.signal).finally(() => {
      this.running.delete(item.id);
      const left = (this.perBatch.get(batch.id) ?? 1) - 1;
      if (left > 0) this.perBatch.set(batch.id, left);
      else this.perBatch.delete(batch.id);
      this.wake();
    });
    this.running.set(item.id, { batchId: batch.id, controller, done });
  }

  private async execute(batch: BatchRecord, item: BatchItemRecord, signal: AbortSignal): Promise<void> {
    const batches = this.deps.store.batches;
    try {
      const outcome = await runItem(this.runDeps, this.settings.discount, batch, item, signal);
      if (outcome.status === "aborted") {
        await batches.release(item.id, this.id);
        return;
      }
      const written = await batches.finish(item.id, this.id, outcome, this.deps.clock.now());
      // Not written: the lease was taken over, or the batch expired or was cancelled meanwhile. The other ending stands.
      if (!written) this.deps.logger.warn({ batch: batch.id, item: item.id, worker: this.id }, "batch item result dropped: claim no longer held");
    } catch (error) {
      // The item stays claimed until its lease runs out, then runs again: better than losing it.
      this.deps.logger.error({ err: error, batch: batch.id, item: item.id }, "batch item could not be recorded");
    }
  }

  private async renew(): Promise<void> {
    if (this.running.size === 0) return;
    try {
      await this.deps.store.batches.renew(this.id, [...this.running.keys()], this.deps.clock.now() + this.settings.leaseMs);
    } catch (error) {
      this.deps.logger.warn({ err: error, worker: this.id }, "batch lease renewal failed");
    }
  }
}
