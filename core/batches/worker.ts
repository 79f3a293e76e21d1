/**
 * The batch worker: one per gateway process.
 *
 * Each tick it advances batch statuses (lifecycle.ts), gives back the claims of gone local processes (orphans.ts),
 * then claims pending items atomically under a lease and runs them through the pipeline, at most `concurrency` at
 * once in this process and `perBatchConcurrency` per batch. While an item runs its lease is renewed; if the process
 * dies the lease runs out (or, on the same machine, its death is seen at once) and any worker reclaims the item.
 * An item ends through a conditional update that only its current claimer can make, so it ends exactly once —
 * a request interrupted mid-flight may be sent upstream again, a finished one never is.
 *
 * Store outages (README "Operations: store outages"): a claimed item keeps its claim through an outage and is run
 * or recorded by this worker as soon as the store is back (held-item.ts). After losing the store, the worker takes
 * over no other worker's expired claims for one lease: those workers lost it too, and renew theirs first.
 */
import { Slices } from "../model/slices.ts";
import type { BatchesConfig } from "../config/types.ts";
import type { Deps } from "../deps.ts";
import { isUnavailable, unavailableStore } from "../ops/unavailable.ts";
import type { BatchItemRecord, BatchRecord } from "../store/types/batches.ts";
import { runHeldItem, type HeldItemContext } from "./held-item.ts";
import { advanceBatches } from "./lifecycle.ts";
import { reclaimOrphans } from "./orphans.ts";
import { workerIdOf } from "./worker-identity.ts";

/** How often a worker deletes results past retention. */
const PURGE_EVERY_MS = 60_000;
/** How often a worker looks for claims of gone local processes (and at its first tick). */
const ORPHANS_EVERY_MS = 5_000;

interface Running {
  batchId: string;
  controller: AbortController;
  done: Promise<void>;
}

/** Runs batches in the background of one gateway process. */
export class BatchWorker {
  /** Names this process's claims (and the process: worker-identity.ts); a restarted process is a new worker. */
  readonly id: string;
  private readonly held: HeldItemContext;
  private readonly running = new Map<string, Running>();
  private readonly perBatch = new Map<string, number>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private renewTimer: ReturnType<typeof setInterval> | undefined;
  private ticking: Promise<void> | undefined;
  private again = false;
  private stopped = true;
  private lastPurge = Number.NEGATIVE_INFINITY;
  private lastOrphanSweep = Number.NEGATIVE_INFINITY;
  /** No takeover of other workers' expired claims before this (set when this worker lost the store). */
  private noTakeOverUntil = Number.NEGATIVE_INFINITY;
  /**
   * A claim failed: it may have taken effect with its reply lost (the connection died after the UPDATE), leaving items
   * claimed by this worker that it does not run. The next fill gives those back before claiming again.
   */
  private claimsInDoubt = false;
  /** Ends waits for the store when the worker stops. */
  private stopping = new AbortController();
  private awaitingStore = false;

  constructor(
    private readonly deps: Deps,
    private readonly settings: BatchesConfig,
  ) {
    this.id = workerIdOf(deps.ids.id("worker-"));
    this.held = {
      deps,
      discount: settings.discount,
      workerId: this.id,
      onStoreTrouble: (error) => this.storeTrouble(error),
    };
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.stopping = new AbortController();
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
      this.resumeWhenStoreIsBack();
    });
  }

  /**
   * While the database is down, also wake the moment it is back (not at the next poll): renew the leases first, so
   * no other worker takes them over, then claim again.
   */
  private resumeWhenStoreIsBack(): void {
    const { availability } = this.deps.store;
    if (availability.up || this.awaitingStore) return;
    this.awaitingStore = true;
    availability.whenUp(this.stopping.signal).then(
      async () => {
        this.awaitingStore = false;
        await this.renew();
        this.wake();
      },
      () => (this.awaitingStore = false),
    );
  }

  /** Items this process is running now (the idle trimmer waits for them, like for open streams). */
  get runningItems(): number {
    return this.running.size;
  }

  /** Stops claiming, gives running items back (they run again elsewhere or after restart) and waits for them. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.stopping.abort();
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
      if (now - this.lastOrphanSweep >= ORPHANS_EVERY_MS) {
        this.lastOrphanSweep = now;
        await reclaimOrphans(this.deps, this.id);
      }
      await this.settleLostClaims();
      await this.fill();
    } catch (error) {
      // A database hiccup must not kill the worker: the next tick retries.
      this.storeTrouble(error);
      // An outage is logged once by the store (availability.ts), not by every tick.
      if (!isUnavailable(error)) this.deps.logger.error({ err: error, worker: this.id }, "batch worker tick failed");
    }
  }

  /** A store operation failed: after a database outage, hold off taking over others' claims for one lease. */
  private storeTrouble(error: unknown): void {
    if (isUnavailable(error) && unavailableStore(error) === "database") {
      this.noTakeOverUntil = this.deps.clock.now() + this.settings.leaseMs;
    }
  }

  /** Claims as many items as there are free slots, oldest batch first, at most `perBatchConcurrency` per batch. */
  private async fill(): Promise<void> {
    let free = this.settings.concurrency - this.running.size;
    if (free <= 0) return;
    const slices = new Slices();
    for (const batch of await this.deps.store.batches.byStatus(["in_progress"], 100)) {
      if (this.stopped || free <= 0) return;
      const room = Math.min(free, this.settings.perBatchConcurrency - (this.perBatch.get(batch.id) ?? 0));
      if (room <= 0) continue;
      const now = this.deps.clock.now();
      let items: BatchItemRecord[];
      try {
        items = await this.deps.store.batches.claim(batch.id, this.id, room, now, this.settings.leaseMs, now >= this.noTakeOverUntil);
      } catch (error) {
        this.claimsInDoubt = true;
        throw error;
      }
      // Each launch runs the item's pipeline up to its first real wait; a slice at a time, so a wide worker does not
      // hold the loop for all of them at once (npm run bench:stall, the batch row).
      for (const item of items) {
        this.launch(batch, item);
        await slices.next();
      }
      free -= items.length;
    }
  }

  /** Gives back the items a claim whose reply was lost left to this worker without running them. */
  private async settleLostClaims(): Promise<void> {
    if (!this.claimsInDoubt) return;
    for (const batch of await this.deps.store.batches.byStatus(["in_progress", "cancelling"], 100)) {
      const running = [...this.running].filter(([, run]) => run.batchId === batch.id).map(([id]) => id);
      const lost = await this.deps.store.batches.releaseClaimsOf(batch.id, this.id, running);
      if (lost > 0) this.deps.logger.info({ batch: batch.id, items: lost, worker: this.id }, "batch worker: gave back items of a claim whose reply was lost");
    }
    this.claimsInDoubt = false;
  }

  private launch(batch: BatchRecord, item: BatchItemRecord): void {
    const controller = new AbortController();
    this.perBatch.set(batch.id, (this.perBatch.get(batch.id) ?? 0) + 1);
    const done = runHeldItem(this.held, batch, item, controller.signal).finally(() => {
      this.running.delete(item.id);
      const left = (this.perBatch.get(batch.id) ?? 1) - 1;
      if (left > 0) this.perBatch.set(batch.id, left);
      else this.perBatch.delete(batch.id);
      this.wake();
    });
    this.running.set(item.id, { batchId: batch.id, controller, done });
  }

  private async renew(): Promise<void> {
    if (this.running.size === 0) return;
    try {
      await this.deps.store.batches.renew(this.id, [...this.running.keys()], this.deps.clock.now() + this.settings.leaseMs);
    } catch (error) {
      this.storeTrouble(error);
      if (!isUnavailable(error)) this.deps.logger.warn({ err: error, worker: this.id }, "batch lease renewal failed");
    }
  }
}
