/**
 * Batch status transitions (spec "States and transitions"; README "Batches"):
 *
 *   validating  → in_progress   the worker picked it up and the submitting key is still valid
 *   validating  → failed        the submitting key was revoked before it started (error.code 401)
 *   in_progress → finalizing    every request has ended
 *   finalizing  → completed     aggregates written (a crash here is resumed: finalizing batches are re-finalized)
 *   validating | in_progress → expired     24 h after creation; unfinished requests fail with an expiry error
 *   validating | in_progress → cancelling  POST /batches/{id}/cancel; requests not started fail as cancelled
 *   cancelling  → cancelled     once no request is running any more (finished results are kept)
 *
 * Terminal: completed, failed, expired, cancelled. Every move is a conditional update (`status IN from`), so when
 * several workers race, exactly one makes each move.
 */
import type { Deps } from "../deps.ts";
import type { BatchRecord, BatchStatus } from "../store/types/batches.ts";
import { batchPrincipal } from "./execute.ts";
import { ITEM_ERRORS } from "./results.ts";
import { aggregateUsage, countEnded } from "./usage.ts";

/** Spec "Limits": batch completion window. */
export const COMPLETION_WINDOW_MS = 24 * 60 * 60 * 1000;
/** Spec "Limits": results are deleted 30 days after creation; `GET` answers 410 from then on. */
export const RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

/** Batches looked at per status and tick: bounded work per tick, the rest on the next one. */
const PER_TICK = 100;

const TERMINAL: ReadonlySet<BatchStatus> = new Set(["completed", "failed", "expired", "cancelled"]);

/** True for completed, failed, expired and cancelled. */
export function isTerminal(status: BatchStatus): boolean {
  return TERMINAL.has(status);
}

/**
 * One pass over every batch that may move; safe to run from several processes at once. `purge` also deletes the
 * results past retention (callers run it less often: nothing there is urgent, and it scans old batches).
 */
export async function advanceBatches(deps: Pick<Deps, "store" | "keyCache" | "clock">, now: number, purge = true): Promise<void> {
  await expireOverdue(deps, now);
  await startValidated(deps, now);
  await finishCancelling(deps, now);
  await finalizeFinished(deps, now);
  if (purge) await purgeOld(deps, now);
}

async function expireOverdue(deps: Pick<Deps, "store">, now: number): Promise<void> {
  for (const batch of await deps.store.batches.dueForExpiry(now, PER_TICK)) {
    const error = { message: "Batch expired: the 24h completion window ended before every request finished" };
    const moved = await deps.store.batches.transition(batch.id, ["validating", "in_progress"], "expired", { finalizedAt: now, error }, { statuses: ["pending", "running"], error: { ...ITEM_ERRORS.expired }, now });
    if (moved) await storeAggregates(deps, batch.id, "expired");
  }
}

async function startValidated(deps: Pick<Deps, "store" | "keyCache" | "clock">, now: number): Promise<void> {
  for (const batch of await deps.store.batches.byStatus(["validating"], PER_TICK)) {
    if (await batchPrincipal(deps, batch)) {
      await deps.store.batches.transition(batch.id, ["validating"], "in_progress", { inProgressAt: now });
      continue;
    }
    const error = { message: "The API key that submitted this batch is no longer valid", code: 401 };
    const moved = await deps.store.batches.transition(batch.id, ["validating"], "failed", { finalizedAt: now, error }, { statuses: ["pending", "running"], error: { ...ITEM_ERRORS.keyInvalid }, now });
    if (moved) await storeAggregates(deps, batch.id, "failed");
  }
}

async function finishCancelling(deps: Pick<Deps, "store">, now: number): Promise<void> {
  for (const batch of await deps.store.batches.byStatus(["cancelling"], PER_TICK)) {
    // Requests already running finish and keep their results; a crashed worker's (lease run out) do not block.
    if ((await deps.store.batches.activeRunning(batch.id, now)) > 0) continue;
    const moved = await deps.store.batches.transition(batch.id, ["cancelling"], "cancelled", { cancelledAt: now, finalizedAt: now }, { statuses: ["pending", "running"], error: { ...ITEM_ERRORS.cancelled }, now });
    if (moved) await storeAggregates(deps, batch.id, "cancelled");
  }
}

async function finalizeFinished(deps: Pick<Deps, "store">, now: number): Promise<void> {
  for (const batch of await deps.store.batches.byStatus(["in_progress", "finalizing"], PER_TICK)) {
    if (batch.status === "in_progress") {
      if (await deps.store.batches.hasUnfinished(batch.id)) continue;
      if (!(await deps.store.batches.transition(batch.id, ["in_progress"], "finalizing", { finalizingAt: now }))) continue;
    }
    await complete(deps, batch, now);
  }
}

/** finalizing → completed with the aggregates; also resumes a finalization a crashed process left half done. */
async function complete(deps: Pick<Deps, "store">, batch: BatchRecord, now: number): Promise<void> {
  const items = await deps.store.batches.results(batch.id);
  const usage = aggregateUsage(items);
  const counts = countEnded(items);
  await deps.store.batches.transition(batch.id, ["finalizing"], "completed", { finalizedAt: now, requestCompleted: counts.completed, requestFailed: counts.failed, usage, cost: typeof usage.cost === "number" ? usage.cost : 0 });
}

/** Writes counts, usage and cost of a batch that just became terminal (its items can no longer change). */
async function storeAggregates(deps: Pick<Deps, "store">, batchId: string, status: BatchStatus): Promise<void> {
  const items = await deps.store.batches.results(batchId);
  const usage = aggregateUsage(items);
  const counts = countEnded(items);
  await deps.store.batches.transition(batchId, [status], status, { requestCompleted: counts.completed, requestFailed: counts.failed, usage, cost: typeof usage.cost === "number" ? usage.cost : 0 });
}

/** Retention: the items (bodies and results) of batches older than 30 days are deleted; the batch row stays. */
async function purgeOld(deps: Pick<Deps, "store">, now: number): Promise<void> {
  for (const batch of await deps.store.batches.dueForPurge(now - RETENTION_MS, PER_TICK)) {
    if (batch.requestCompleted === null) await storeAggregates(deps, batch.id, batch.status);
    await deps.store.batches.purge(batch.id, now);
  }
}
