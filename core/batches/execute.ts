/**
 * Runs one batch request through THE pipeline (the batch worker runs the same pipeline and the
 * same model turn as live traffic, without HTTP) and encodes the item's ending from the outcome or the thrown
 * error (spec "Batch" result entry); nothing rendered is parsed back.
 */
import type { Principal } from "../auth/principal.ts";
import type { Deps } from "../deps.ts";
import { toGatewayError, type GatewayError } from "../errors.ts";
import { isUnavailable } from "../ops/unavailable.ts";
import { chatFormat } from "../formats/chat/index.ts";
import { envelopeOf } from "../http/envelope.ts";
import { collect } from "../model/collect.ts";
import type { RequestContext } from "../pipeline/context.ts";
import { newContext } from "../pipeline/new-context.ts";
import { runPipeline } from "../pipeline/pipeline.ts";
import { logRequest } from "../pipeline/request-log.ts";
import type { BatchItemRecord, BatchRecord, ItemEnding } from "../store/types/batches.ts";
import { formatOfEndpoint } from "./endpoints.ts";
import { ITEM_ERRORS, resultError } from "./results.ts";

/**
 * How a run ended: an item ending; `aborted` (the worker is stopping; the item goes back to the queue); or
 * `unavailable` (a store the request needs is down: not the request's fault, so not its ending — the worker keeps the
 * claim and runs it again once the store is back).
 */
export type RunOutcome = ItemEnding | { status: "aborted" } | { status: "unavailable"; error: GatewayError };

/**
 * The principal of the key that submitted the batch, checked now (not at submission): a key disabled, expired or
 * deleted since then fails the requests that have not run yet.
 */
export async function batchPrincipal(deps: Pick<Deps, "keyCache" | "clock">, batch: BatchRecord): Promise<Principal | undefined> {
  const record = await deps.keyCache.get(batch.keyHash);
  if (!record || record.disabled || (record.expiresAt !== null && record.expiresAt <= deps.clock.now())) return undefined;
  return { keyHash: record.hash, name: record.name, workspaceId: record.workspaceId, isManagement: record.isManagement, isOperator: record.isOperator === true, record };
}

/**
 * Runs one item. The batch discount (config `batches.discount`) is the
 * price factor of the item's bill (core/accounting/bill.ts): the generation record, the key's usage, its credit
 * window, its guardrail budgets and the result body's `usage.cost` all get the discounted cost. Credit holds stay at
 * the list-price worst case (conservative, and released when the bill closes).
 */
export async function runItem(deps: Deps, discount: number, batch: BatchRecord, item: BatchItemRecord, signal: AbortSignal): Promise<RunOutcome> {
  const format = formatOfEndpoint(batch.endpoint);
  if (!format) return failed(resultError(400, "invalid_request", `Unsupported batch endpoint ${batch.endpoint}`));
  let principal: Principal | undefined;
  try {
    principal = await batchPrincipal(deps, batch);
  } catch (thrown) {
    if (isUnavailable(thrown)) return { status: "unavailable", error: toGatewayError(thrown) };
    throw thrown;
  }
  if (!principal) return failed(ITEM_ERRORS.keyInvalid);
  let ctx: RequestContext;
  try {
    ctx = newContext(deps, format, item.body, new Headers(), signal, 1 - discount);
  } catch (thrown) {
    // Bodies were decoded at submission; this only happens if the format's rules changed since (an upgrade).
    const error = toGatewayError(thrown);
    return failed(resultError(error.status, error.type, error.message, paramOf(error.metadata)));
  }
  ctx.principal = principal;
  // How metrics and traces tell a batch item from an HTTP request (core/observe/labels.ts); and in the log line.
  ctx.batchId = batch.id;
  ctx.log.batch_id = batch.id;
  try {
    const outcome = await runPipeline(ctx);
    // Batch bodies are non-streaming, so a stream outcome is only ever collected here.
    const response = outcome.kind === "response" ? outcome.response : await collect(outcome.events);
    if (signal.aborted) return { status: "aborted" };
    if (response.error) {
      logRequest(ctx, response.error.status, response.error.message);
      return failed(resultError(response.error.status, response.error.type, response.error.message, paramOf(response.error.metadata)));
    }
    // Spec: a result's `response.body` is a chat-completions result body, whatever the chat endpoint; an embeddings
    // item's is the embeddings list (a completion has no place for vectors), as OpenAI's batches answer it.
    const encoder = ctx.request.task === undefined ? chatFormat : format;
    const body = encoder.encode(response, { request: ctx.request, generationId: ctx.generationId });
    logRequest(ctx, 200);
    return { status: "completed", result: { body, request_id: ctx.generationId, status_code: 200 } };
  } catch (thrown) {
    if (signal.aborted) return { status: "aborted" };
    const error = toGatewayError(thrown);
    if (isUnavailable(error)) return { status: "unavailable", error };
    if (error.status >= 500 && error.type === "server") deps.logger.error({ err: error.cause ?? error, batch: batch.id, item: item.id }, "batch item failed");
    ctx.log.error_type = error.type;
    ctx.bill.answeredWith(error.status, error.type);
    // The same envelope the HTTP edge would send (a 500 hides its internals), as a result entry.
    const { code, message, metadata } = envelopeOf(error).error;
    logRequest(ctx, error.status, message);
    return failed(resultError(code, error.type, message, paramOf(metadata)));
  }
}

function failed(error: ReturnType<typeof resultError>): ItemEnding {
  return { status: "failed", error: { ...error } };
}

function paramOf(metadata: Record<string, unknown> | undefined): string | null {
  return typeof metadata?.param === "string" ? metadata.param : null;
}
