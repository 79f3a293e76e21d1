/**
 * One claimed batch item, from its run to its written ending (README "Operations: store outages"). The claim is held
 * throughout: while a store the request needs is down the item waits and runs again once it is back, and an ending
 * the database could not take yet is kept in memory and written as soon as it can be — by this worker, at once, not
 * after a lease runs out and not by running the request a second time. Only a worker that stops gives an item up.
 */
import type { Deps } from "../deps.ts";
import { isUnavailable, unavailableStore } from "../ops/unavailable.ts";
import type { BatchItemRecord, BatchRecord, ItemEnding } from "../store/types/batches.ts";
import { runItem } from "./execute.ts";
import { resultError } from "./results.ts";

/** Retries of one item back off from this to at most the second figure (a flapping store is not hammered). */
const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 5_000;

export interface HeldItemContext {
  deps: Deps;
  /** The batch discount (config `batches.discount`): each item's bill is priced at 1 − discount. */
  discount: number;
  workerId: string;
  /** Told of every store failure (the worker then holds off taking over others' claims). */
  onStoreTrouble(error: unknown): void;
}

/** Runs the item and writes its ending; resolves once it is written, dropped (claim lost) or given up (stopping). */
export async function runHeldItem(ctx: HeldItemContext, batch: BatchRecord, item: BatchItemRecord, signal: AbortSignal): Promise<void> {
  const outcome = await runUntilAnswered(ctx, batch, item, signal);
  if (outcome.status === "aborted") return giveBack(ctx, batch, item);
  await writeEnding(ctx, batch, item, outcome, signal);
}

/** Runs the item until it has an ending (or the worker stops), waiting out store outages between runs. */
async function runUntilAnswered(ctx: HeldItemContext, batch: BatchRecord, item: BatchItemRecord, signal: AbortSignal): Promise<ItemEnding | { status: "aborted" }> {
  for (let attempt = 0; ; attempt++) {
    let outcome;
    try {
      outcome = await runItem(ctx.deps, ctx.discount, batch, item, signal);
    } catch (error) {
      // runItem turns every failure of the request into an ending; what escapes it is ours: a 500, as the edge says.
      ctx.deps.logger.error({ err: error, batch: batch.id, item: item.id }, "batch item failed");
      return { status: "failed", error: { ...resultError(500, "server", "Internal server error") } };
    }
    if (outcome.status !== "unavailable") return outcome;
    ctx.onStoreTrouble(outcome.error);
    if (!(await waitToRetry(ctx.deps, outcome.error, attempt, signal))) return { status: "aborted" };
  }
}

/** Writes the ending, retrying while the database cannot take it; only a stopping worker gives up. */
async function writeEnding(ctx: HeldItemContext, batch: BatchRecord, item: BatchItemRecord, ending: ItemEnding, signal: AbortSignal): Promise<void> {
  const { deps } = ctx;
  for (let attempt = 0; ; attempt++) {
    try {
      const written = await deps.store.batches.finish(item.id, ctx.workerId, ending, deps.clock.now());
      // Not written: the claim was taken over, or the batch expired or was cancelled meanwhile. That ending stands.
      if (!written) deps.logger.warn({ batch: batch.id, item: item.id, worker: ctx.workerId }, "batch item result dropped: claim no longer held");
      return;
    } catch (error) {
      ctx.onStoreTrouble(error);
      if (attempt === 0) {
        const level = isUnavailable(error) ? "warn" : "error";
        deps.logger[level]({ err: error, batch: batch.id, item: item.id }, "batch item result not written yet: kept, written once the store takes it");
      }
      if (!(await waitToRetry(deps, error, attempt, signal))) {
        deps.logger.error({ batch: batch.id, item: item.id }, "batch item result lost: the worker stopped before the store took it (the request runs again)");
        return;
      }
    }
  }
}

/** Stopping: the item goes back to the queue, or (store down) keeps its claim until the lease runs out. */
async function giveBack(ctx: HeldItemContext, batch: BatchRecord, item: BatchItemRecord): Promise<void> {
  try {
    await ctx.deps.store.batches.release(item.id, ctx.workerId);
  } catch (error) {
    ctx.deps.logger.warn({ err: error, batch: batch.id, item: item.id }, "batch item not given back: it runs again once its lease runs out or this process is gone");
  }
}

/**
 * Waits before another try: until the database is up again when it is the one down, then a backoff. False when the
 * worker stopped meanwhile.
 */
async function waitToRetry(deps: Deps, error: unknown, attempt: number, signal: AbortSignal): Promise<boolean> {
  try {
    if (isUnavailable(error) && unavailableStore(error) === "database") await deps.store.availability.whenUp(signal);
    await sleep(Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** attempt), signal);
    return !signal.aborted;
  } catch {
    return false;
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", abort);
      resolve();
    }, ms);
    const abort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", abort, { once: true });
  });
}
