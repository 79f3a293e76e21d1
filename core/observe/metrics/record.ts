/**
 * Counts one request, turn or tool call into the metric families. Everything is read from what the request path
 * recorded anyway (the context, its attempts, pipeline entries and bill), once, when that thing ended: a handful of
 * counter increments per request and no work while it runs.
 */
import type { ServerToolPart } from "../../model/parts.ts";
import type { FinishReason } from "../../model/response.ts";
import type { Cost, Usage } from "../../model/usage.ts";
import type { RequestContext } from "../../pipeline/context.ts";
import type { Endpoint } from "../../routing/catalog.ts";
import { attemptOutcome, attemptStep } from "../attempts.ts";
import { errorTypeLabel, modelLabel, providerLabel, routeLabel, statusLabel } from "../labels.ts";
import { incBy, observeBy } from "./bound.ts";
import type { MetricFamilies } from "./families.ts";

export function recordRequest(m: MetricFamilies, ctx: RequestContext, status: number, endedAt: number): void {
  const route = routeLabel(ctx);
  const model = modelLabel(ctx);
  const provider = providerLabel(ctx);
  const labels = { route, model, provider, status: statusLabel(status) };
  incBy(m.requests, labels);
  observeBy(m.requestSeconds, labels, Math.max(0, endedAt - ctx.startedAt) / 1000);
  if (ctx.firstTokenMs !== undefined) observeBy(m.firstTokenSeconds, { route, model, provider }, ctx.firstTokenMs / 1000);
  const attempts = ctx.attempts;
  for (let i = 0; i < attempts.length; i++) {
    const attempt = attempts[i]!;
    incBy(m.attempts, { model: attempt.model, provider: attempt.providerId, outcome: outcomeLabel(attempt) });
    const step = attemptStep(attempts, i);
    if (step === "retry") incBy(m.retries, { model: attempt.model, provider: attempt.providerId });
    else if (step === "fallback") {
      const left = attempts[i - 1]!;
      incBy(m.fallbacks, { model: left.model, provider: left.providerId });
    }
  }
  const cache = ctx.cacheReport;
  if (cache !== undefined) incBy(cache.status === "hit" ? m.cacheHits : m.cacheMisses, {});
  for (const entry of ctx.pipeline) incBy(m.pipelineActions, { type: entry.type, name: entry.name });
  const bill = ctx.bill;
  for (const charge of bill.charges) if (charge.amount > 0) incBy(m.chargesUsd, { source: charge.source }, charge.amount);
  if (status === 402 && bill.ending.errorType === "payment_required") incBy(m.creditRefusals, { route });
  // The gateway's own limiter sets X-RateLimit-* on its 429; an upstream's 429 passed on does not.
  if (status === 429 && ctx.replyHeaders?.["x-ratelimit-limit"] !== undefined) incBy(m.rateLimitHits, { route });
}

/** `success` and `error` as they are; an error type bounded to the spec's list. */
function outcomeLabel(attempt: RequestContext["attempts"][number]): string {
  const outcome = attemptOutcome(attempt);
  return outcome === "success" || outcome === "error" ? outcome : errorTypeLabel(outcome);
}

export function recordTurn(m: MetricFamilies, endpoint: Endpoint, usage: Usage, cost: Cost, finish: FinishReason): void {
  const model = endpoint.model.id;
  const provider = endpoint.provider.id;
  const add = (kind: string, n: number) => {
    if (n > 0) incBy(m.tokens, { model, provider, kind }, n);
  };
  add("input", usage.input.total);
  add("output", usage.output.total);
  add("cache_read", usage.input.cacheRead);
  add("cache_write", usage.input.cacheWrite);
  add("reasoning", usage.output.reasoning);
  if (cost.total > 0) incBy(m.costUsd, { model, provider }, cost.total);
  incBy(m.turns, { model, provider, finish_reason: finish });
}

export function recordToolCall(m: MetricFamilies, part: ServerToolPart, seconds: number): void {
  incBy(m.toolCalls, { tool: part.name, status: part.status });
  observeBy(m.toolSeconds, { tool: part.name }, seconds);
}
