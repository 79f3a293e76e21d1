/**
 * accounting: prices what the served endpoint reported, attaches `cost` to the response (or to the stream's usage
 * events), records one generation per request off the hot path — also when the request failed — and settles the
 * key's credit reservation with the actual cost. What an upstream produced is billed even when a later stage fails.
 */
import { costOf } from "../../accounting/pricing.ts";
import { toGatewayError } from "../../errors.ts";
import type { EventStream, StreamEvent } from "../../model/events.ts";
import type { FinishReason } from "../../model/response.ts";
import { emptyUsage, type Cost, type Usage } from "../../model/usage.ts";
import type { RequestContext } from "../context.ts";
import type { Stage } from "../stage.ts";

export const accountingStage: Stage = {
  name: "accounting",
  async run(ctx, next) {
    try {
      await next();
    } catch (error) {
      const failure = toGatewayError(error);
      ctx.log.error_type = failure.type;
      // The upstream answered but a later stage (a post-plugin, say) failed: what it produced was still spent.
      const produced = ctx.outcome?.kind === "response" ? ctx.outcome.response : undefined;
      if (produced) settle(ctx, produced.usage, priceFor(ctx, produced.usage, produced.finish.reason), "error", failure.status);
      else settle(ctx, emptyUsage(), { total: 0, input: 0, output: 0, upstream: null }, "error", failure.status);
      throw error;
    }
    const outcome = ctx.outcome;
    if (!outcome) return;
    if (outcome.kind === "response") {
      const response = outcome.response;
      const cost = priceFor(ctx, response.usage, response.finish.reason);
      response.cost = cost;
      if (response.error) ctx.log.error_type = response.error.type;
      settle(ctx, response.usage, cost, response.finish.raw ?? response.finish.reason, response.error?.status ?? 200);
    } else {
      ctx.outcome = { kind: "stream", events: meter(ctx, outcome.events) };
    }
  },
};

function priceFor(ctx: RequestContext, usage: Usage, finish: FinishReason): Cost {
  const pricing = ctx.served?.model.pricing;
  if (!pricing) return { total: 0, input: 0, output: 0, upstream: null };
  return costOf(usage, pricing, finish === "error");
}

/** Wraps a stream: attaches cost to usage events and settles once when the stream ends, however it ends. */
async function* meter(ctx: RequestContext, events: EventStream): EventStream {
  let usage = emptyUsage();
  let finish: FinishReason | undefined;
  let rawFinish: string | undefined;
  let status = 200;
  try {
    for await (const event of events) {
      if (ctx.firstTokenMs === undefined && isOutput(event)) ctx.firstTokenMs = ctx.deps.clock.now() - ctx.startedAt;
      if (event.type === "usage") {
        usage = event.usage;
        yield { ...event, cost: priceFor(ctx, usage, finish ?? "stop") };
        continue;
      }
      if (event.type === "finish") {
        finish = event.finish.reason;
        rawFinish = event.finish.raw ?? event.finish.reason;
      }
      if (event.type === "error") {
        finish = "error";
        rawFinish = "error";
        status = event.error.status;
        ctx.log.error_type = event.error.type;
      }
      yield event;
    }
  } catch (thrown) {
    // A source that throws (rather than sending an `error` event) still failed: record it as such.
    const failure = toGatewayError(thrown);
    finish = "error";
    rawFinish = "error";
    status = failure.status;
    ctx.log.error_type = failure.type;
    throw thrown;
  } finally {
    // Also runs when the client disconnects mid-stream: what the upstream produced so far is still billed.
    settle(ctx, usage, priceFor(ctx, usage, finish ?? "error"), rawFinish ?? "aborted", status);
  }
}

function isOutput(event: StreamEvent): boolean {
  return event.type === "text-delta" || event.type === "reasoning-delta" || event.type === "tool-call-delta" || event.type === "tool-call-start";
}

function settle(ctx: RequestContext, usage: Usage, cost: Cost, finishReason: string, status: number): void {
  const principal = ctx.principal;
  ctx.log.tokens_in = usage.input.total;
  ctx.log.tokens_out = usage.output.total;
  ctx.log.cost = cost.total;
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
    cost: cost.total,
    latencyMs: ctx.deps.clock.now() - ctx.startedAt,
    firstTokenMs: ctx.firstTokenMs ?? null,
    createdAt: ctx.startedAt,
  });
  // After the ledger record (a re-seeded credit window then includes this cost). Not awaited: the commit adds the
  // cost before it releases the reservation, so the reply need not wait for it.
  ctx.credit?.commit(cost.total).catch((err: unknown) => ctx.deps.logger.error({ err, id: ctx.generationId }, "accounting: credit settlement failed (the reservation will expire)"));
}
