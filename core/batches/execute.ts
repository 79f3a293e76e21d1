/**
 * Runs one batch request through THE pipeline (ARCHITECTURE §1.2: the batch worker runs the same pipeline as live
 * traffic, without HTTP) and turns the outcome into the item's ending (spec "Batch" result entry).
 */
import type { Principal } from "../auth/principal.ts";
import type { Deps } from "../deps.ts";
import { isErrorType, toGatewayError } from "../errors.ts";
import { chatFormat } from "../formats/chat/index.ts";
import { collect } from "../model/collect.ts";
import type { CanonicalResponse } from "../model/response.ts";
import type { RequestContext } from "../pipeline/context.ts";
import { runPipeline } from "../pipeline/order.ts";
import { isRecord } from "../presets/json.ts";
import { newContext } from "../routes/inference.ts";
import type { BatchItemRecord, BatchRecord, ItemEnding } from "../store/types.ts";
import { discountedCost } from "./discount.ts";
import { formatOfEndpoint } from "./endpoints.ts";
import { ITEM_ERRORS, resultError } from "./results.ts";

/** How a run ended: an item ending, or `aborted` (the worker is stopping; the item goes back to the queue). */
export type RunOutcome = ItemEnding | { status: "aborted" };

/**
 * The principal of the key that submitted the batch, checked now (not at submission): a key disabled, expired or
 * deleted since then fails the requests that have not run yet.
 */
export async function batchPrincipal(deps: Pick<Deps, "keyCache" | "clock">, batch: BatchRecord): Promise<Principal | undefined> {
  const record = await deps.keyCache.get(batch.keyHash);
  if (!record || record.disabled || (record.expiresAt !== null && record.expiresAt <= deps.clock.now())) return undefined;
  return { keyHash: record.hash, name: record.name, workspaceId: record.workspaceId, isManagement: record.isManagement, record };
}

/**
 * Runs one item. `runDeps` is `deps` with the discounted ledger (discount.ts); `discount` is applied to the cost the
 * result body reports, so the body and the ledger agree.
 */
export async function runItem(runDeps: Deps, discount: number, batch: BatchRecord, item: BatchItemRecord, signal: AbortSignal): Promise<RunOutcome> {
  const format = formatOfEndpoint(batch.endpoint);
  if (!format) return failed(resultError(400, "invalid_request", `Unsupported batch endpoint ${batch.endpoint}`));
  const principal = await batchPrincipal(runDeps, batch);
  if (!principal) return failed(ITEM_ERRORS.keyInvalid);
  let ctx: RequestContext;
  try {
    ctx = newContext(runDeps, format, item.body, new Headers(), signal);
  } catch (thrown) {
    // Bodies were decoded at submission; this only happens if the format's rules changed since (an upgrade).
    const error = toGatewayError(thrown);
    return failed(resultError(error.status, error.type, error.message, paramOf(error.metadata)));
  }
  ctx.principal = principal;
  try {
    await runPipeline(ctx);
    if (signal.aborted) return { status: "aborted" };
    const response = await responseOf(ctx);
    if (response && !response.error) {
      if (response.cost) response.cost = discountedCost(response.cost, discount);
      // Spec: a result's `response.body` is a chat-completions result body, whatever the batch endpoint.
      const body = chatFormat.encode(response, { request: ctx.request, generationId: ctx.generationId });
      return { status: "completed", result: { body, request_id: ctx.generationId, status_code: 200 } };
    }
    if (response?.error) return failed(resultError(response.error.status, response.error.type, response.error.message, paramOf(response.error.metadata)));
    return failed(await errorFromHttp(ctx));
  } catch (thrown) {
    if (signal.aborted) return { status: "aborted" };
    const error = toGatewayError(thrown);
    runDeps.logger.error({ err: error.cause ?? error, batch: batch.id, item: item.id }, "batch item failed unexpectedly");
    return failed(resultError(error.status, error.type, error.status === 500 ? "Internal server error" : error.message));
  }
}

function failed(error: ReturnType<typeof resultError>): ItemEnding {
  return { status: "failed", error: { ...error } };
}

/** The whole response; a stream outcome (never asked for: batch bodies are non-streaming) is collected. */
async function responseOf(ctx: RequestContext): Promise<CanonicalResponse | undefined> {
  const outcome = ctx.outcome;
  if (!outcome) return undefined;
  return outcome.kind === "response" ? outcome.response : collect(outcome.events);
}

/** A failed pipeline run leaves the error envelope in `ctx.http` (format-out stage): read it back. */
async function errorFromHttp(ctx: RequestContext): Promise<ReturnType<typeof resultError>> {
  const http = ctx.http;
  const envelope: unknown = http ? await http.json().catch(() => undefined) : undefined;
  const error = isRecord(envelope) && isRecord(envelope.error) ? envelope.error : {};
  const metadata = isRecord(error.metadata) ? error.metadata : {};
  const status = typeof error.code === "number" ? error.code : (http?.status ?? 500);
  const type = isErrorType(metadata.error_type) ? metadata.error_type : "server";
  const message = typeof error.message === "string" ? error.message : "Internal server error";
  return resultError(status, type, message, paramOf(metadata));
}

function paramOf(metadata: Record<string, unknown> | undefined): string | null {
  return typeof metadata?.param === "string" ? metadata.param : null;
}
