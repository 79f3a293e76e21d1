/**
 * limits: per-key rate limits, then the credit reservation, before anything reaches an upstream.
 *
 * - Rate limits (the key's `rate_limit`, else the config default): 429 with Retry-After and X-RateLimit-*. When the
 *   kv is unreachable they degrade OPEN (an error log, the request proceeds): a limiter outage must not become an
 *   outage of the gateway.
 * - Credits (keys with a `limit`): the worst case is reserved atomically (core/limits/credits.ts); exhausted → 402.
 *   When the kv is unreachable they fail CLOSED with 503: spending past a limit cannot be taken back.
 * Accounting (inside this stage) settles the reservation with the actual cost; what it did not settle is released
 * here on the way out, and a stream settles when it ends.
 */
import { limitsOf } from "../../config/routing-limits.ts";
import { GatewayError } from "../../errors.ts";
import type { CreditHold } from "../../limits/credits.ts";
import { promptSize, promptTokenEstimate, type PromptSize } from "../../limits/estimate.ts";
import { checkRateLimits } from "../../limits/rate-limit.ts";
import { ceilingFor, sizeReservation } from "../../limits/reservation.ts";
import { throttledError } from "../../routing/throttled-log.ts";
import type { ApiKeyRecord } from "../../store/types.ts";
import type { RequestContext } from "../context.ts";
import type { Stage } from "../stage.ts";

const errorLoggers = new WeakMap<object, (err: unknown, message: string) => void>();

export const limitsStage: Stage = {
  name: "limits",
  async run(ctx, next) {
    const record = ctx.principal?.record;
    if (!record) return next();
    const settings = limitsOf(ctx.deps.config);
    const rateLimit = record.rateLimit ?? settings.rateLimit;
    let size: PromptSize | undefined;
    if (rateLimit) {
      size = promptSize(ctx.request);
      await enforceRateLimits(ctx, record.hash, rateLimit, promptTokenEstimate(size) + (ctx.request.maxTokens ?? 0));
    }
    if (record.limit === null) return next();
    const hold = await reserveCredits(ctx, { ...record, limit: record.limit }, size ?? promptSize(ctx.request));
    if (!hold) return next();
    ctx.credit = hold;
    try {
      await next();
    } finally {
      // A stream settles when it ends (accounting's meter); anything else accounting did not settle is released.
      if (ctx.outcome?.kind !== "stream") hold.release().catch((err: unknown) => logError(ctx, err, "limits: credit reservation release failed (it will expire)"));
    }
  },
};

async function enforceRateLimits(ctx: RequestContext, keyHash: string, setting: NonNullable<ApiKeyRecord["rateLimit"]>, tokens: number): Promise<void> {
  let denial;
  try {
    denial = await checkRateLimits(ctx.deps.kv, keyHash, setting, tokens, ctx.deps.clock.now());
  } catch (err) {
    logError(ctx, err, "limits: rate limits not enforced: the kv is unreachable (failing open)");
    return;
  }
  if (!denial) return;
  ctx.replyHeaders = { ...ctx.replyHeaders, ...denial.headers };
  throw denial.error;
}

async function reserveCredits(ctx: RequestContext, record: ApiKeyRecord & { limit: number }, prompt: PromptSize): Promise<CreditHold | undefined> {
  const settings = limitsOf(ctx.deps.config);
  const ceiling = ceilingFor(ctx.request, ctx.deps.catalog);
  if (!ceiling) return undefined;
  const size = sizeReservation(ctx.request, prompt, ceiling, settings.defaultMaxOutputTokens);
  if (size.unbounded) {
    // Nothing bounds the output: cap it, or the actual cost could exceed the reservation (and so the limit).
    ctx.request.maxTokens = size.outputTokens;
    ctx.request.warnings.push({ code: "approximated", field: "max_tokens", message: `max_tokens was set to ${size.outputTokens} to bound this key's credit reservation` });
  }
  let result;
  try {
    result = await ctx.deps.credits.reserve(record, size.amount, ctx.generationId);
  } catch (err) {
    logError(ctx, err, "limits: credit reservation failed: the kv is unreachable (failing closed)");
    throw new GatewayError("provider_unavailable", "Service temporarily unavailable: credit limits cannot be checked right now", {
      status: 503,
      retryable: true,
      retryAfter: 1,
      metadata: { availability: { code: "temporarily_unavailable", retryable: true, retry_after: 1 } },
    });
  }
  if (result.granted) return result.hold;
  const affordable = size.completionPrice > 0 ? Math.max(0, Math.floor((result.remaining - size.fixedCost) / size.completionPrice)) : 0;
  const message =
    affordable > 0
      ? `This request requires more credits, or fewer max_tokens. You requested up to ${size.outputTokens} tokens, but can only afford ${affordable}.`
      : "Insufficient credits: this key's limit is exhausted for the current period";
  throw new GatewayError("payment_required", message, {
    metadata: { limit: record.limit, limit_remaining: round(result.remaining), limit_reset: record.limitReset, requested_tokens: size.outputTokens, affordable_tokens: affordable },
  });
}

function logError(ctx: RequestContext, err: unknown, message: string): void {
  let log = errorLoggers.get(ctx.deps.logger);
  if (!log) {
    log = throttledError(ctx.deps.logger);
    errorLoggers.set(ctx.deps.logger, log);
  }
  log(err, message);
}

function round(value: number): number {
  return Math.round(value * 1e12) / 1e12;
}
