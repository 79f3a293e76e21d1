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
import { observe, type StreamObserver } from "../upstream/relay.ts";

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
      // The relay runs the meter in its own loop when it can; a stream wrapped by a plugin is metered by a wrapper.
      const observer = new Meter(ctx);
      if (!observe(outcome.events, observer)) ctx.outcome = { kind: "stream", events: meter(observer, outcome.events) };
    }
  },
};

function priceFor(ctx: RequestContext, usage: Usage, finish: FinishReason): Cost {
  const pricing = ctx.served?.model.pricing;
  if (!pricing) return { total: 0, input: 0, output: 0, upstream: null };
  return costOf(usage, pricing, finish === "error");
}

/** Attaches cost to usage events and settles once when the stream ends, however it ends. */
class Meter implements StreamObserver {
  private usage = emptyUsage();
  private finish: FinishReason | undefined;
  private rawFinish: string | undefined;
  private status = 200;

  constructor(private readonly ctx: RequestContext) {}

  event(event: StreamEvent): StreamEvent {
    const ctx = this.ctx;
    if (ctx.firstTokenMs === undefined && isOutput(event)) ctx.firstTokenMs = ctx.deps.clock.now() - ctx.startedAt;
    switch (event.type) {
      case "usage":
        this.usage = event.usage;
        return { ...event, cost: priceFor(ctx, event.usage, this.finish ?? "stop") };
      case "finish":
        this.finish = event.finish.reason;
        this.rawFinish = event.finish.raw ?? event.finish.reason;
        return event;
      case "error":
        this.finish = "error";
        this.rawFinish = "error";
        this.status = event.error.status;
        ctx.log.error_type = event.error.type;
        return event;
      default:
        return event;
    }
  }

  /** A source that throws (rather than sending an `error` event) still failed: record it as such. */
  fail(thrown: unknown): void {
    const failure = toGatewayError(thrown);
    this.finish = "error";
    this.rawFinish = "error";
    this.status = failure.status;
    this.ctx.log.error_type = failure.type;
  }

  /** Also runs when the client disconnects mid-stream: what the upstream produced so far is still billed. */
  end(): void {
    settle(this.ctx, this.usage, priceFor(this.ctx, this.usage, this.finish ?? "error"), this.rawFinish ?? "aborted", this.status);
  }
}

/** The meter as a wrapper, for a stream that is not a bare relay (a plugin's stream hook, a deferred walk). */
async function* meter(observer: Meter, events: EventStream): EventStream {
  try {
    for await (const event of events) yield observer.event(event);
  } catch (thrown) {
    observer.fail(thrown);
    throw thrown;
  } finally {
    observer.end();
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
