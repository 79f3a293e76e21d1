/**
 * accounting: settles what the request spent — every model turn (each metered at the endpoint that served it, see
 * turn/meter.ts) plus the plugins' charges — into one generation record, off the hot path, and the key's credit
 * hold with the actual cost; the reply's usage shows every turn's tokens and the whole cost. Also when the request failed: what an upstream produced is billed even when a later
 * step fails. A stream settles when it ends, seen through the stream outcome itself.
 */
import { toGatewayError } from "../../errors.ts";
import { generationDetails } from "../../accounting/generation-details.ts";
import type { StreamEvent } from "../../model/events.ts";
import type { RequestContext } from "../context.ts";
import type { Outcome, StreamObserver } from "../outcome.ts";
import type { Stage } from "../stage.ts";

export const accountingStage: Stage = {
  name: "accounting",
  async run(ctx, next) {
    let outcome: Outcome;
    try {
      outcome = await next();
    } catch (error) {
      settleFailure(ctx, error);
      throw error;
    }
    if (outcome.kind === "response") {
      const response = outcome.response;
      // One turn and no charges: the turn's own cost is the bill (the common case, nothing to add up). Otherwise the
      // reply shows every turn's tokens and cost (a plugin's sub-requests, refused attempts, an agent loop's turns).
      if (ctx.spend.isCompound() || response.cost === undefined) response.cost = ctx.spend.totalCost();
      if (ctx.spend.isCompound()) response.usage = ctx.spend.totalUsage(response.usage);
      if (response.error) ctx.log.error_type = response.error.type;
      settle(ctx, response.finish.raw ?? response.finish.reason, response.error?.status ?? 200);
    } else {
      outcome.observe(new StreamSettlement(ctx));
    }
    return outcome;
  },
};

/** Shows the whole bill in the stream's usage events when there is more to it than this turn, settles at the end. */
class StreamSettlement implements StreamObserver {
  constructor(private readonly ctx: RequestContext) {}

  /**
   * A usage event's tokens and `cost` are the live turn's; with more to the bill the event shows the whole
   * request's. One with no cost (the agent loop's closing usage, after all its turns settled) already sums the
   * tokens: only its cost is added up.
   */
  event(event: StreamEvent): StreamEvent {
    if (event.type !== "usage" || (event.cost !== undefined && !this.ctx.spend.isCompound())) return event;
    const spend = this.ctx.spend;
    return { ...event, usage: event.cost === undefined ? event.usage : spend.totalUsage(event.usage, event.usage), cost: spend.totalCost(event.cost) };
  }

  fail(): void {}

  /** Runs after the turn's own meter ended (observers end in the order they were attached). */
  end(): void {
    // How this stream ended, read before settle() abandons any turn a plugin dropped (that would overwrite it).
    const { finish, status, errorType } = this.ctx.spend;
    if (errorType !== undefined) this.ctx.log.error_type = errorType;
    settle(this.ctx, finish ?? "aborted", status);
  }
}

/**
 * Settles a request that failed: what its turns spent (an upstream's output is billed even when a later step
 * failed), or nothing — but always a generation record, also for an answer a stage before this one gave (the
 * limits stage's 402 and 429: every answer has a record, issue 16 item 4).
 */
export function settleFailure(ctx: RequestContext, error: unknown): void {
  const failure = toGatewayError(error);
  ctx.log.error_type = failure.type;
  settle(ctx, "error", failure.status);
}

function settle(ctx: RequestContext, finishReason: string, status: number): void {
  if (ctx.spend.settled) return;
  ctx.spend.settled = true;
  ctx.spend.abandonUnread();
  const principal = ctx.principal;
  const { usage } = ctx.spend;
  const cost = ctx.spend.totalCost().total;
  ctx.log.tokens_in = usage.input.total;
  ctx.log.tokens_out = usage.output.total;
  ctx.log.cost = cost;
  if (!principal?.record) return; // the env admin key cannot run inference, so nothing to bill
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
    finishReason,
    errorType: status >= 400 ? String(ctx.log.error_type ?? "server") : null,
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
  });
  // After the ledger record (a re-seeded credit window then includes this cost). Not awaited: the commit adds the
  // cost before it releases the reservation, so the reply need not wait for it.
  ctx.credit?.commit(cost).catch((err: unknown) => ctx.deps.logger.error({ err, id: ctx.generationId }, "accounting: credit settlement failed (the reservation will expire)"));
}
