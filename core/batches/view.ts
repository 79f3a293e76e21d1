/** The Batch object (spec "Batch"): exactly its fields; timestamps in Unix seconds. */
import type { BatchItemRecord, BatchRecord } from "../store/types/batches.ts";
import { isTerminal } from "./lifecycle.ts";
import { resultEntry } from "./results.ts";
import { aggregateUsage, countEnded } from "./usage.ts";

const seconds = (ms: number): number => Math.floor(ms / 1000);

/**
 * Renders a batch. `items` are its items (with results) when the caller loaded them: needed for `results` of a
 * terminal batch and for live counts while it runs; a listing passes none and shows the stored counts.
 */
export function batchView(batch: BatchRecord, items: readonly BatchItemRecord[] | undefined, withResults: boolean): Record<string, unknown> {
  const terminal = isTerminal(batch.status);
  const ended = items ? countEnded(items) : { completed: batch.requestCompleted ?? 0, failed: batch.requestFailed ?? 0 };
  const results = terminal && withResults && items ? items.flatMap((item) => resultEntry(item) ?? []) : null;
  const usage = !terminal ? null : (batch.usage ?? (items ? aggregateUsage(items) : null));
  return {
    id: batch.id,
    object: "batch",
    endpoint: batch.endpoint,
    model: batch.model,
    status: batch.status,
    completion_window: batch.completionWindow,
    created_at: seconds(batch.createdAt),
    finalized_at: batch.finalizedAt === null ? null : seconds(batch.finalizedAt),
    request_counts: { completed: ended.completed, failed: ended.failed, total: batch.requestTotal },
    error: batch.error,
    results,
    usage,
  };
}

/** A batch as `GET /batches` lists it: the Batch object without `results`. */
export function listedBatchView(batch: BatchRecord): Record<string, unknown> {
  const { results: _omitted, ...listed } = batchView(batch, undefined, false);
  return listed;
}
