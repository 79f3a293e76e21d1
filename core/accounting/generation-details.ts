/**
 * What a generation record keeps beyond its counters, for the admin page's detail view (`GET /generation?id=`
 * returns it as `attempts`, `pipeline`, `warnings`): every upstream attempt, the pipeline entries (plugins,
 * guardrails, the agent loop) and the warnings of the served attempt. Stored as JSON text, capped so one request
 * with a long agent loop cannot bloat the table: past the cap the pipeline entries keep only their type and name.
 */
import type { RequestContext } from "../pipeline/context.ts";

/** Characters of JSON text kept per generation. */
export const MAX_DETAILS_CHARS = 16_384;

export function generationDetails(ctx: RequestContext): string | null {
  const attempts = ctx.attempts.map((a) => ({
    model: a.model,
    provider: a.providerId,
    status: a.status ?? null,
    error_type: a.errorType ?? null,
    ms: a.endedAt === undefined ? null : a.endedAt - a.startedAt,
    ...(a.tier !== undefined ? { tier: a.tier } : {}),
  }));
  const warnings = ctx.request?.warnings ?? [];
  if (attempts.length === 0 && ctx.pipeline.length === 0 && warnings.length === 0) return null;
  const full = JSON.stringify({ attempts, pipeline: ctx.pipeline, warnings });
  if (full.length <= MAX_DETAILS_CHARS) return full;
  const brief = JSON.stringify({ attempts, pipeline: ctx.pipeline.map((e) => ({ type: e.type, name: e.name, truncated: true })), warnings: warnings.slice(0, 20) });
  return brief.length <= MAX_DETAILS_CHARS ? brief : JSON.stringify({ attempts: attempts.slice(0, 50), pipeline: [], warnings: [], truncated: true });
}
