/** Batch and batch-item records and the batch repository contract (implemented in ../repos/batches.ts). */

/** Batch statuses (spec "Batch", "States and transitions"). */
export type BatchStatus = "validating" | "in_progress" | "finalizing" | "completed" | "failed" | "expired" | "cancelling" | "cancelled";

/** A batch item's own lifecycle: claimed under a lease while running; `completed`/`failed` are final. */
export type BatchItemStatus = "pending" | "running" | "completed" | "failed";

/** A batch-level error: `code` only for failed batches (spec "Batch" `error`). */
export interface BatchError {
  message: string;
  code?: number;
}

/** One batch row (spec "Batch"); aggregates are filled when it reaches a terminal status. */
export interface BatchRecord {
  id: string;
  workspaceId: string;
  keyHash: string;
  endpoint: string;
  model: string | null;
  status: BatchStatus;
  completionWindow: string;
  /** Unix ms, like every timestamp below. */
  createdAt: number;
  inProgressAt: number | null;
  finalizingAt: number | null;
  finalizedAt: number | null;
  cancellingAt: number | null;
  cancelledAt: number | null;
  expiresAt: number;
  error: BatchError | null;
  requestTotal: number;
  requestCompleted: number | null;
  requestFailed: number | null;
  usage: Record<string, unknown> | null;
  cost: number | null;
  purgedAt: number | null;
}

/** A submitted batch with its validated requests. */
export interface NewBatch {
  id: string;
  workspaceId: string;
  keyHash: string;
  endpoint: string;
  model: string | null;
  completionWindow: string;
  createdAt: number;
  expiresAt: number;
  items: ReadonlyArray<{ id: string; customId: string; body: Record<string, unknown> }>;
}

/** One request of a batch. */
export interface BatchItemRecord {
  id: string;
  batchId: string;
  idx: number;
  customId: string;
  body: Record<string, unknown>;
  status: BatchItemStatus;
  claimedBy: string | null;
  claimedUntil: number | null;
  attempts: number;
  result: Record<string, unknown> | null;
  error: Record<string, unknown> | null;
  finishedAt: number | null;
}

/** Fields a status transition may stamp. */
export type BatchPatch = Partial<
  Pick<BatchRecord, "inProgressAt" | "finalizingAt" | "finalizedAt" | "cancellingAt" | "cancelledAt" | "error" | "requestCompleted" | "requestFailed" | "usage" | "cost" | "purgedAt">
>;

/** How an item ended. */
export type ItemEnding =
  | { status: "completed"; result: Record<string, unknown> }
  | { status: "failed"; error: Record<string, unknown> };

/** Items that a transition fails in the same transaction (expiry, cancellation, a batch that cannot run). */
export interface FailItems {
  statuses: ReadonlyArray<"pending" | "running">;
  error: Record<string, unknown>;
  now: number;
}

/** Batches and their items (spec "Batch", endpoint 5). Claims are atomic across processes. */
export interface BatchRepo {
  create(batch: NewBatch): Promise<BatchRecord>;
  get(id: string): Promise<BatchRecord | undefined>;
  /** Newest first; `after` is the cursor batch (exclusive). */
  list(workspaceId: string, page: { after?: { createdAt: number; id: string }; limit: number }): Promise<BatchRecord[]>;
  /** Removes the batch and its items; true when it existed. */
  delete(id: string): Promise<boolean>;
  /** Batches in any of these statuses, oldest first. */
  byStatus(statuses: readonly BatchStatus[], limit: number): Promise<BatchRecord[]>;
  /** Non-terminal batches past their completion window. */
  dueForExpiry(now: number, limit: number): Promise<BatchRecord[]>;
  /** Batches created at or before `cutoff` whose items were not purged yet. */
  dueForPurge(cutoff: number, limit: number): Promise<BatchRecord[]>;
  /**
   * Moves the batch from one of `from` to `to` and stamps `patch`; with `failItems`, also fails its unfinished
   * items in the same transaction. True when this call made the move (a conditional update: exactly one caller wins).
   */
  transition(id: string, from: readonly BatchStatus[], to: BatchStatus, patch: BatchPatch, failItems?: FailItems): Promise<boolean>;
  /** Item counts by status. */
  counts(batchId: string): Promise<Record<BatchItemStatus, number>>;
  /** Whether any item is still pending or running: one index lookup, where `counts` reads every item's entry. */
  hasUnfinished(batchId: string): Promise<boolean>;
  /** Running items whose lease has not run out (a crashed worker's items are not counted). */
  activeRunning(batchId: string, now: number): Promise<number>;
  /** Items in submission order, without bodies (results and errors only). */
  results(batchId: string): Promise<BatchItemRecord[]>;
  /**
   * Atomically claims up to `limit` pending items for `workerId` and, unless `takeOver` is false, running items of
   * other workers whose lease expired; never items `workerId` holds itself.
   */
  claim(batchId: string, workerId: string, limit: number, now: number, leaseMs: number, takeOver?: boolean): Promise<BatchItemRecord[]>;
  /** Extends the leases this worker holds on these items. */
  renew(workerId: string, itemIds: readonly string[], until: number): Promise<void>;
  /** Ends an item, only if `workerId` still holds it running: exactly one ending per item. True when written. */
  finish(itemId: string, workerId: string, ending: ItemEnding, now: number): Promise<boolean>;
  /** Gives a claimed item back (worker stopping): pending again, claimable at once. */
  release(itemId: string, workerId: string): Promise<void>;
  /** The workers holding running items of a batch. */
  claimHolders(batchId: string): Promise<string[]>;
  /**
   * Gives back the running items of a batch that `workerId` holds, except those in `keep` (a worker known to be gone:
   * all of them; a worker whose claim's reply was lost: those it is not running); how many.
   */
  releaseClaimsOf(batchId: string, workerId: string, keep?: readonly string[]): Promise<number>;
  /** Deletes the items of a batch (retention) and stamps `purged_at`. */
  purge(batchId: string, now: number): Promise<void>;
}
