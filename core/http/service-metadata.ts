/**
 * The routing metadata object (spec "Routing metadata object"), shown only when the client opts in.
 * It reports what happened, from the context: the endpoints routing considered (and the one selected), those it
 * excluded and why, every upstream attempt with its outcome, the strategy and a one-line summary.
 */
import type { RequestContext } from "../pipeline/context.ts";

/** `X-Service-Metadata: enabled`, or the legacy `X-Service-Experimental-Metadata`. */
export function wantsMetadata(headers: Headers): boolean {
  const value = headers.get("x-service-metadata") ?? headers.get("x-service-experimental-metadata");
  return value?.trim().toLowerCase() === "enabled";
}

/** Builds `service_metadata`; `attempt: 0` means no provider was reached. */
export function serviceMetadataOf(ctx: RequestContext): Record<string, unknown> {
  const selected = ctx.served;
  const considered = ctx.candidates;
  const attempt = ctx.attempts.length;
  const routed = ctx.request.model ?? ctx.request.models[0] ?? "";
  // Failed attempts, not all of them: a request's several turns (agent loop, a plugin's panel) are no fallback.
  const fallbackUsed = failedAttempts(ctx) > 0 || (selected !== undefined && selected.model.id !== routed);
  const routing = fallbackUsed ? "fallback" : "direct";
  // A plugin that chose the model (a router, fusion) names its strategy (the last one wins) in its entry, and a
  // router the model id the client asked for (`service/auto`).
  const chooser = ctx.pipeline.findLast((entry) => typeof entry.strategy === "string");
  const strategy = typeof chooser?.strategy === "string" ? chooser.strategy : routing;
  const asked = ctx.pipeline.find((entry) => typeof entry.requested === "string")?.requested;
  const requested = typeof asked === "string" ? asked : routed;
  const endpoints: Record<string, unknown> = {
    available: considered.map((c) => ({ model: c.model.id, provider: c.provider.id, selected: c === selected })),
    total: considered.length,
  };
  const excluded = ctx.route?.excluded ?? [];
  if (excluded.length > 0) {
    endpoints.excluded = excluded.map((e) => ({ model: e.endpoint.model.id, provider: e.endpoint.provider.id, reason: e.reason, detail: e.detail }));
  }
  const metadata: Record<string, unknown> = {
    attempt,
    endpoints,
    generation_time: ctx.deps.clock.now() - ctx.startedAt,
    is_byok: ctx.byokServed === true,
    region: "local",
    requested,
    strategy,
    summary: chooser && typeof chooser.summary === "string" ? `${chooser.summary}; ${summaryOf(ctx, routing, routed)}` : summaryOf(ctx, routing, routed),
    attempts: ctx.attempts.map((a) => ({
      model: a.model,
      provider: a.providerId,
      status: a.status ?? null,
      error_type: a.errorType ?? null,
      ...(a.endedAt !== undefined ? { latency_ms: a.endedAt - a.startedAt } : {}),
      ...(a.tier !== undefined && ctx.request.serviceTier !== undefined ? { service_tier: a.tier } : {}),
    })),
  };
  if (ctx.cacheReport !== undefined) metadata.cache = ctx.cacheReport;
  if (ctx.request.warnings.length > 0) metadata.warnings = ctx.request.warnings;
  if (ctx.pipeline.length > 0) metadata.pipeline = ctx.pipeline;
  return metadata;
}

function summaryOf(ctx: RequestContext, strategy: string, requested: string): string {
  const selected = ctx.served;
  const attempt = ctx.attempts.length;
  if (!selected) return attempt === 0 ? "No provider was reached" : `No endpoint served the request after ${attempt} attempt(s)`;
  const failed = failedAttempts(ctx);
  let summary =
    strategy === "direct"
      ? `Routed to ${selected.provider.id} for ${selected.model.id}`
      : failed > 0
        ? `Fell back after ${failed} failed attempt(s) to ${selected.provider.id} for ${selected.model.id}`
        : `Fell back to ${selected.provider.id} for ${selected.model.id} (${requested} had no eligible endpoint)`;
  const tier = ctx.request.serviceTier !== undefined ? ctx.route?.tiers.get(selected) : undefined;
  if (tier !== undefined) summary += ` at the ${tier} tier`;
  if (ctx.route?.sticky?.pinned === selected.provider.id) summary += " (sticky session)";
  return summary;
}

function failedAttempts(ctx: RequestContext): number {
  let failed = 0;
  for (const a of ctx.attempts) if (a.errorType !== undefined || (a.status !== undefined && a.status >= 400)) failed++;
  return failed;
}
