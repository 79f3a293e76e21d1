/** The routing metadata object (spec "Routing metadata object"), shown only when the client opts in. */
import type { RequestContext } from "../pipeline/context.ts";

/** `X-Service-Metadata: enabled`, or the legacy `X-Service-Experimental-Metadata`. */
export function wantsMetadata(headers: Headers): boolean {
  const value = headers.get("x-service-metadata") ?? headers.get("x-service-experimental-metadata");
  return value?.trim().toLowerCase() === "enabled";
}

export function serviceMetadataOf(ctx: RequestContext): Record<string, unknown> {
  const selected = ctx.served;
  const considered = ctx.candidates;
  const attempt = ctx.attempts.length;
  const requested = ctx.request.model ?? ctx.request.models[0] ?? "";
  const fallbackUsed = attempt > 1 || (selected !== undefined && selected.model.id !== requested);
  const strategy = fallbackUsed ? "fallback" : "direct";
  const summary = selected
    ? `${strategy === "direct" ? "Routed" : `Fell back after ${attempt - 1} failed attempt(s)`} to ${selected.provider.id} for ${selected.model.id}`
    : `No endpoint served the request after ${attempt} attempt(s)`;
  const metadata: Record<string, unknown> = {
    attempt,
    endpoints: {
      available: considered.map((c) => ({ model: c.model.id, provider: c.provider.id, selected: c === selected })),
      total: considered.length,
    },
    generation_time: ctx.deps.clock.now() - ctx.startedAt,
    is_byok: false,
    region: "local",
    requested,
    strategy,
    summary,
    attempts: ctx.attempts.map((a) => ({ model: a.model, provider: a.providerId, status: a.status ?? null, error_type: a.errorType ?? null })),
  };
  if (ctx.request.warnings.length > 0) metadata.warnings = ctx.request.warnings;
  if (Array.isArray(ctx.log.pipeline)) metadata.pipeline = ctx.log.pipeline;
  return metadata;
}
