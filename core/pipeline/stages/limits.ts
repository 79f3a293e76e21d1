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
import { catalogCeiling, ceilingFor, sizeReservation, type ReservationSize } from "../../limits/reservation.ts";
import type { CanonicalRequest } from "../../model/request.ts";
import { throttledError } from "../../util/throttled-log.ts";
import type { ApiKeyRecord } from "../../store/types.ts";
import type { RequestContext } from "../context.ts";
import type { Outcome } from "../outcome.ts";
import type { Stage } from "../stage.ts";
import { settleFailure } from "./accounting.ts";
import { roundUsd } from "../../accounting/money.ts";

const errorLoggers = new WeakMap<object, (err: unknown, message: string) => void>();

export const limitsStage: Stage = {
  name: "limits",
  async run(ctx, next) {
    if (!ctx.principal?.record) return next();
    try {
      return await limited(ctx, next);
    } catch (error) {
      // Refused here (402, 429, a 503 of the credit store) or in a stage before accounting: the answer still gets
      // its generation record (accounting settles everything after it itself).
      if (!ctx.spend.settled) settleFailure(ctx, error);
      throw error;
    }
  },
};

/** Rate limits, then the credit hold around the rest of the pipeline. */
async function limited(ctx: RequestContext, next: () => Promise<Outcome>): Promise<Outcome> {
  const record = ctx.principal!.record!;
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
  let outcome: Outcome | undefined;
  try {
    outcome = await next();
    return outcome;
  } finally {
    // A stream settles when it ends (accounting); anything else accounting did not settle is released.
    if (outcome?.kind !== "stream") hold.release().catch((err: unknown) => logError(ctx, err, "limits: credit reservation release failed (it will expire)"));
  }
}

/**
 * A later turn of the same request (an agent step, a plugin's retry or fan-out) extends the request's credit hold
 * by that turn's own worst case before it calls anything, so a loop of turns can never spend past the limit.
 */
export async function holdForTurn(ctx: RequestContext, request: CanonicalRequest): Promise<void> {
  const hold = ctx.credit;
  const record = ctx.principal?.record;
  // A hold without a key limit is a guardrail budget's (core/guardrails/budgets.ts): extended all the same.
  if (!hold || !record) return;
  const size = sizeFor(ctx, request, promptSize(request));
  if (!size) return;
  let granted: boolean;
  try {
    granted = await hold.extend(size.amount);
  } catch (err) {
    logError(ctx, err, "limits: credit hold extension failed: the kv is unreachable (failing closed)");
    throw creditsUnavailable();
  }
  if (!granted) {
    throw new GatewayError("payment_required", "Insufficient credits for another model turn of this request", {
      metadata: { limit: record.limit, limit_reset: record.limitReset, requested_tokens: size.outputTokens },
    });
  }
}

/** The worst case of one turn of `request`; caps an unbounded output so the actual cost stays within it. */
export function sizeFor(ctx: RequestContext, request: CanonicalRequest, prompt: PromptSize): ReservationSize | undefined {
  const ceiling = routedByPlugin(ctx, request) ? catalogCeiling(ctx.deps.catalog) : ceilingFor(request, ctx.deps.catalog);
  if (!ceiling) return undefined;
  const size = sizeReservation(request, prompt, ceiling, limitsOf(ctx.deps.config).defaultMaxOutputTokens);
  if (size.unbounded) {
    // Nothing bounds the output: cap it, or the actual cost could exceed the reservation (and so the limit).
    request.maxTokens = size.outputTokens;
    request.warnings.push({ code: "approximated", field: "max_tokens", message: `max_tokens was set to ${size.outputTokens} to bound this key's credit reservation` });
  }
  return size;
}

/**
 * A request for a router plugin's model id (`service/auto`), or with no model and a router's entry: its model is
 * chosen after the reservation, so any model of the catalog may serve it.
 */
function routedByPlugin(ctx: RequestContext, request: CanonicalRequest): boolean {
  const { model } = request;
  const registry = ctx.deps.registry;
  if (model === undefined) {
    return request.models.length === 0 && request.plugins.some((entry) => entry.enabled !== false && (registry.plugin(entry.id)?.models?.length ?? 0) > 0);
  }
  return ctx.deps.catalog.get(model) === undefined && registry.orderedPlugins().some((p) => p.models?.includes(model) === true);
}

function creditsUnavailable(): GatewayError {
  return new GatewayError("provider_unavailable", "Service temporarily unavailable: credit limits cannot be checked right now", {
    status: 503,
    retryable: true,
    retryAfter: 1,
    metadata: { availability: { code: "temporarily_unavailable", retryable: true, retry_after: 1 } },
  });
}

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
  const size = sizeFor(ctx, ctx.request, prompt);
  if (!size) return undefined;
  // Sized for this model, unless a router picks one later (then the catalog's dearest: any model is covered).
  if (!routedByPlugin(ctx, ctx.request)) ctx.spend.reservedModel = ctx.request.model;
  let result;
  try {
    result = await ctx.deps.credits.reserve(record, size.amount, ctx.generationId);
  } catch (err) {
    logError(ctx, err, "limits: credit reservation failed: the kv is unreachable (failing closed)");
    throw creditsUnavailable();
  }
  if (result.granted) return result.hold;
  const affordable = size.completionPrice > 0 ? Math.max(0, Math.floor((result.remaining - size.fixedCost) / size.completionPrice)) : 0;
  const message =
    affordable > 0
      ? `This request requires more credits, or fewer max_tokens. You requested up to ${size.outputTokens} tokens, but can only afford ${affordable}.`
      : "Insufficient credits: this key's limit is exhausted for the current period";
  throw new GatewayError("payment_required", message, {
    metadata: { limit: record.limit, limit_remaining: roundUsd(result.remaining), limit_reset: record.limitReset, requested_tokens: size.outputTokens, affordable_tokens: affordable },
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

