/**
 * Closes a request's bill (core/accounting/bill.ts) into its one generation record, written off the hot path by the
 * usage ledger, and commits its credit holds with the actual cost. The accounting stage closes every request that
 * reaches it; the limits stage closes an answer given before accounting ran (its own 402, 429 and 503, a guardrail's
 * refusal), so every answer has a record.
 */
import { toGatewayError } from "../errors.ts";
import type { RequestContext } from "../pipeline/context.ts";
import type { Closing, Ending } from "./bill.ts";
import { generationDetails } from "./generation-details.ts";

/**
 * `ending`: the answer's; without one (a stream that ended), the latest turn's. Resolves when the holds are committed;
 * nothing need wait for that (a commit adds the cost before it releases the reservation, so the reply need not).
 */
export function closeBill(ctx: RequestContext, ending?: Ending): Promise<void> | undefined {
  const committed = ctx.bill.close(ending, (closing) => writeRecord(ctx, closing));
  return committed?.catch((err: unknown) => ctx.deps.logger.error({ err, id: ctx.generationId }, "accounting: credit settlement failed (the reservation will expire)"));
}

/**
 * Closes the bill of a request that failed: what its turns spent (an upstream's output is billed even when a later
 * step failed), or nothing — but always a record.
 */
export function closeFailed(ctx: RequestContext, error: unknown): void {
  const failure = toGatewayError(error);
  closeBill(ctx, { finish: "error", status: failure.status, errorType: failure.type });
}

function writeRecord(ctx: RequestContext, { usage, cost, byokCost, ending }: Closing): void {
  // The log line's fields (written only: test/unit/architecture/request-log-fields.test.ts).
  ctx.log.tokens_in = usage.input.total;
  ctx.log.tokens_out = usage.output.total;
  ctx.log.cost = cost;
  if (ending.errorType !== undefined) ctx.log.error_type = ending.errorType;
  const principal = ctx.principal;
  if (!principal?.record) return; // the env admin key cannot run inference, so nothing to bill
  const { status } = ending;
  ctx.deps.ledger.record({
    id: ctx.generationId,
    workspaceId: principal.workspaceId,
    keyHash: principal.keyHash,
    format: ctx.format.id,
    model: ctx.served?.model.id ?? ctx.request.model ?? "",
    providerId: ctx.served?.provider.id ?? null,
    upstreamModel: ctx.served?.model.upstreamModel ?? null,
    streamed: ctx.request.stream,
    status,
    finishReason: ending.finish ?? "aborted",
    errorType: status >= 400 ? (ending.errorType ?? "server") : null,
    inputTokens: usage.input.total,
    cachedInputTokens: usage.input.cacheRead,
    cacheWriteTokens: usage.input.cacheWrite,
    outputTokens: usage.output.total,
    reasoningTokens: usage.output.reasoning,
    cost,
    latencyMs: ctx.deps.clock.now() - ctx.startedAt,
    firstTokenMs: ctx.firstTokenMs ?? null,
    createdAt: ctx.startedAt,
    details: generationDetails(ctx),
    ...(ctx.byokServed || byokCost > 0 ? { isByok: true, byokCost } : {}),
  });
}
