/**
 * limits: per-key rate limits, then the credit reservation, before anything reaches an upstream.
 *
 * - Rate limits (the key's `rate_limit`, else the config default): 429 with Retry-After and X-RateLimit-*. When the
 *   kv is unreachable they degrade OPEN (an error log, the request proceeds): a limiter outage must not become an
 *   outage of the gateway.
 * - Credits (keys with a `limit`): the worst case is reserved atomically (core/limits/credits.ts) and opens the
 *   request's bill (core/accounting/bill.ts) with it; exhausted → 402. When the kv is unreachable they fail CLOSED
 *   with 503: spending past a limit cannot be taken back.
 * - The workspace's settings: allowed models and providers, disabled server tools, its rate limit and its budgets
 *   (core/workspaces/apply.ts), held like the key's limit.
 * Accounting (inside this stage) closes the bill; an answer given before it ran (this stage's own refusals) closes
 * it here, and what nothing closed (a reply accounting never saw) lets go of its holds on the way out.
 */
import { closeFailed } from "../../accounting/close-bill.ts";
import { roundUsd } from "../../accounting/money.ts";
import { limitsOf } from "../../config/routing-limits.ts";
import { GatewayError } from "../../errors.ts";
import { promptSize, promptTokenEstimate, type PromptSize } from "../../limits/estimate.ts";
import { creditsUnavailable, limitsErrorLog } from "../../limits/failures.ts";
import { checkRateLimits } from "../../limits/rate-limit.ts";
import { billTerms, turnSize } from "../../limits/turn-size.ts";
import type { ApiKeyRecord } from "../../store/types.ts";
import { applyWorkspace, workspaceStateOf } from "../../workspaces/apply.ts";
import { countingByok } from "../../byok/holds.ts";
import type { RequestContext } from "../context.ts";
import type { Outcome } from "../outcome.ts";
import type { Stage } from "../stage.ts";

export const limitsStage: Stage = {
  name: "limits",
  async run(ctx, next) {
    if (!ctx.principal?.record) return next();
    let outcome: Outcome | undefined;
    try {
      outcome = await limited(ctx, next);
      return outcome;
    } catch (error) {
      // Refused here (402, 429, a 503 of the credit store) or in a stage before accounting: the answer still gets
      // its generation record (accounting closed everything after it itself).
      closeFailed(ctx, error);
      throw error;
    } finally {
      // A stream's bill closes when it ends.
      if (outcome?.kind !== "stream") ctx.bill.letGo()?.catch((err: unknown) => limitsErrorLog(ctx.deps.logger)(err, "limits: credit reservation release failed (it will expire)"));
    }
  },
};

/** Rate limits, then the credit reservation the rest of the pipeline runs on. */
async function limited(ctx: RequestContext, next: () => Promise<Outcome>): Promise<Outcome> {
  const record = ctx.principal!.record!;
  const settings = limitsOf(ctx.deps.config);
  const rateLimit = record.rateLimit ?? settings.rateLimit;
  let size: PromptSize | undefined;
  if (rateLimit) {
    size = promptSize(ctx.request);
    await enforceRateLimits(ctx, record.hash, rateLimit, promptTokenEstimate(size) + (ctx.request.maxTokens ?? 0));
  }
  if (record.limit !== null) await reserveCredits(ctx, { ...record, limit: record.limit }, size ?? promptSize(ctx.request));
  // The workspace's own settings and budgets (README "Workspaces"): a cached look-up when it has none.
  const pending = workspaceStateOf(ctx);
  const workspace = pending instanceof Promise ? await pending : pending;
  if (workspace.byok.length > 0) ctx.byok = workspace.byok;
  if (workspace.active) {
    const cache = workspace.settings.cache;
    if (cache) ctx.workspaceCache = cache.ttl_seconds === undefined ? { enabled: cache.enabled } : { enabled: cache.enabled, ttlSeconds: cache.ttl_seconds };
    await applyWorkspace(ctx, workspace);
  }
  return next();
}

async function enforceRateLimits(ctx: RequestContext, keyHash: string, setting: NonNullable<ApiKeyRecord["rateLimit"]>, tokens: number): Promise<void> {
  let denial;
  try {
    denial = await checkRateLimits(ctx.deps.kv, keyHash, setting, tokens, ctx.deps.clock.now());
  } catch (err) {
    limitsErrorLog(ctx.deps.logger)(err, "limits: rate limits not enforced: the kv is unreachable (failing open)");
    return;
  }
  if (!denial) return;
  ctx.replyHeaders = { ...ctx.replyHeaders, ...denial.headers };
  throw denial.error;
}

/** Reserves the request's first turn at its worst and opens the bill with it; a 402 when the limit cannot cover it. */
async function reserveCredits(ctx: RequestContext, record: ApiKeyRecord & { limit: number }, prompt: PromptSize): Promise<void> {
  const size = turnSize(ctx.deps, ctx.request, prompt);
  if (!size) return;
  let result;
  try {
    result = await ctx.deps.credits.reserve(record, size.amount, ctx.generationId);
  } catch (err) {
    limitsErrorLog(ctx.deps.logger)(err, "limits: credit reservation failed: the kv is unreachable (failing closed)");
    throw creditsUnavailable();
  }
  if (result.granted) {
    ctx.bill.open(billTerms(ctx.deps, record, ctx.request), [countingByok(result.hold, record.includeByokInLimit, ctx.bill)]);
    return;
  }
  const affordable = size.completionPrice > 0 ? Math.max(0, Math.floor((result.remaining - size.fixedCost) / size.completionPrice)) : 0;
  const message =
    affordable > 0
      ? `This request requires more credits, or fewer max_tokens. You requested up to ${size.outputTokens} tokens, but can only afford ${affordable}.`
      : "Insufficient credits: this key's limit is exhausted for the current period";
  throw new GatewayError("payment_required", message, {
    metadata: { limit: record.limit, limit_remaining: roundUsd(result.remaining), limit_reset: record.limitReset, requested_tokens: size.outputTokens, affordable_tokens: affordable },
  });
}
