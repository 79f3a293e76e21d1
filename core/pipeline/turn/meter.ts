/**
 * Meters one model turn: prices what the served endpoint reported, attaches `cost` to the response (or to the
 * stream's usage events), and adds the turn to the request's bill when it is done — for a stream, when the stream
 * ends however it ends (a client that goes away mid-stream still pays for what the upstream produced).
 *
 * A stream stopped before the upstream reported its usage (the client left, or never read and was timed out;
 * upstreams report usage last) produced output all the same, and was billed for it upstream: its usage is then
 * estimated — the prompt at about four bytes per token (or as the upstream counted it before the first token), the output seen at about four characters per token,
 * never above `max_tokens` — rather than recorded as zero.
 */
import { costOf } from "../../accounting/pricing.ts";
import { roundUsd } from "../../accounting/money.ts";
import { byokOf } from "../../byok/credentials.ts";
import { limitsOf } from "../../config/routing-limits.ts";
import { toGatewayError } from "../../errors.ts";
import type { StreamEvent } from "../../model/events.ts";
import type { CanonicalResponse, FinishReason } from "../../model/response.ts";
import { emptyUsage, type Cost, type Usage } from "../../model/usage.ts";
import type { Endpoint } from "../../routing/catalog.ts";
import { promptSize, promptTokenEstimate } from "../../limits/estimate.ts";
import type { CanonicalRequest } from "../../model/request.ts";
import type { RequestContext } from "../context.ts";
import type { StreamObserver, StreamOutcome } from "../outcome.ts";

/**
 * What a turn costs the request. Served with a workspace's own provider key (README "Bring your own keys"), the
 * provider bills that key: the request pays only the BYOK fee (`limits.byok_fee_percent` of the list price), and the
 * list price is kept as `byok` (the key's `byok_usage`) and `upstream`.
 */
export function priceFor(endpoint: Endpoint, usage: Usage, finish: FinishReason, byokFeePercent = 0): Cost {
  const cost = costOf(usage, endpoint.model.pricing, finish === "error");
  if (!byokOf(endpoint)) return cost;
  const fee = byokFeePercent / 100;
  return { total: roundUsd(cost.total * fee), input: roundUsd(cost.input * fee), output: roundUsd(cost.output * fee), upstream: cost.total, byok: cost.total };
}

const feeOf = (ctx: RequestContext) => limitsOf(ctx.deps.config).byokFeePercent;

/**
 * The usage with the images the reply carried counted in `output.images` (what the per-image price applies to).
 * Counted here from the output itself, so every adapter that decodes image output is billed alike; a count the
 * adapter already reported wins.
 */
export function withImageCount(usage: Usage, images: number): Usage {
  if (images === 0 || usage.output.images !== undefined) return usage;
  return { ...usage, output: { ...usage.output, images } };
}

/** Prices a whole response and adds it to the request's bill. */
export function meterResponse(ctx: RequestContext, endpoint: Endpoint, response: CanonicalResponse): void {
  response.usage = withImageCount(response.usage, response.parts.filter((part) => part.type === "image").length);
  const cost = priceFor(endpoint, response.usage, response.finish.reason, feeOf(ctx));
  response.cost = cost;
  const error = response.error;
  ctx.bill.turnEnded(response.usage, cost, response.finish.raw ?? response.finish.reason, error?.status ?? 200, error?.type);
  ctx.deps.observer?.turn(ctx, endpoint, response.usage, cost, response.finish.reason);
}

/** Meters a stream from inside its own loop; `request` is the turn's (for an estimate, see above). */
export function meterStream(ctx: RequestContext, endpoint: Endpoint, outcome: StreamOutcome, request: CanonicalRequest = ctx.request): void {
  outcome.observe(new StreamMeter(ctx, endpoint, request));
}

/** Typical characters (output) and bytes (prompt) per token, for usage an upstream never reported. */
const CHARS_PER_TOKEN = 4;

/** Attaches cost to usage events and adds the turn to the bill once, when the stream ends. */
class StreamMeter implements StreamObserver {
  private usage = emptyUsage();
  /** Images seen so far (image output), priced per image with the usage. */
  private images = 0;
  private finish: FinishReason | undefined;
  private rawFinish: string | undefined;
  private status = 200;
  private errorType: string | undefined;
  private reported = false;
  /** Characters of output deltas seen (for an estimate when no usage is reported). */
  private outputChars = 0;

  constructor(
    private readonly ctx: RequestContext,
    private readonly endpoint: Endpoint,
    private readonly request: CanonicalRequest,
  ) {}

  event(event: StreamEvent): StreamEvent {
    const ctx = this.ctx;
    if (ctx.firstTokenMs === undefined && isContent(event)) ctx.firstTokenMs = ctx.deps.clock.now() - ctx.startedAt;
    switch (event.type) {
      case "text-delta":
      case "reasoning-delta":
      case "tool-call-delta":
      case "refusal-delta":
        this.outputChars += event.delta.length;
        return event;
      case "image":
        this.images++;
        return event;
      case "audio":
        // Spoken words, for the estimate of a stream cut before its usage (audio bytes are no measure of tokens).
        this.outputChars += event.transcript?.length ?? 0;
        return event;
      case "usage": {
        // Usage normally comes after the content, so the images are counted by now (`end` counts them all again).
        this.usage = event.usage;
        this.reported = true;
        const usage = withImageCount(event.usage, this.images);
        return { ...event, usage, cost: priceFor(this.endpoint, usage, this.finish ?? "stop", feeOf(this.ctx)) };
      }
      case "finish":
        this.finish = event.finish.reason;
        this.rawFinish = event.finish.raw ?? event.finish.reason;
        return event;
      case "error":
        this.failWith(event.error.status, event.error.type);
        return event;
      default:
        return event;
    }
  }

  /** A source that throws (rather than sending an `error` event) still failed: record it as such. */
  fail(thrown: unknown): void {
    const failure = toGatewayError(thrown);
    this.failWith(failure.status, failure.type);
  }

  end(): void {
    // A usage reported early (the prompt only, before the first token) and no final one: the output is estimated.
    const final = this.reported && (this.usage.output.total > 0 || this.outputChars === 0);
    const usage = withImageCount(final ? this.usage : this.estimate(), this.images);
    const cost = priceFor(this.endpoint, usage, this.finish ?? "error", feeOf(this.ctx));
    this.ctx.bill.turnEnded(usage, cost, this.rawFinish ?? "aborted", this.status, this.errorType);
    this.ctx.deps.observer?.turn(this.ctx, this.endpoint, usage, cost, this.finish ?? "error");
  }

  /** Usage of a stream that ended before the upstream reported it (see the top of this file). */
  private estimate(): Usage {
    if (this.outputChars === 0) return this.usage;
    const cap = this.request.maxTokens ?? Number.POSITIVE_INFINITY;
    const output = Math.min(cap, Math.ceil(this.outputChars / CHARS_PER_TOKEN));
    const input = this.reported ? this.usage.input : { total: promptTokenEstimate(promptSize(this.request)), cacheRead: 0, cacheWrite: 0 };
    return { input, output: { total: output, reasoning: 0 } };
  }

  private failWith(status: number, type: string): void {
    this.finish = "error";
    this.rawFinish = "error";
    this.status = status;
    this.errorType = type;
  }
}

/** The first token, for time-to-first-token: content the model produced (not usage or finish, unlike attempt.ts's first output). */
function isContent(event: StreamEvent): boolean {
  return event.type === "text-delta" || event.type === "reasoning-delta" || event.type === "tool-call-delta" || event.type === "tool-call-start" || event.type === "image" || event.type === "audio";
}
