/**
 * Whether a request uses the response cache, and for how long (README "Response cache"). The most specific word wins:
 * the request's `X-Service-Cache` header (`true`, `force`, or `false` to opt out), then the preset it named, then its
 * key's setting, then its workspace's. Without any of them the cache is not consulted at all.
 */
import type { CacheConfig } from "../config/cache.ts";
import { errors } from "../errors.ts";
import { warn } from "../model/warnings.ts";
import type { RequestContext } from "../pipeline/context.ts";

/** A preset's, key's or workspace's `cache` setting (`{"enabled": true, "ttl_seconds": N}`). */
export interface CacheSetting {
  enabled: boolean;
  ttlSeconds?: number;
}

/** What the cache does for one request. */
export interface CacheDecision {
  ttlSeconds: number;
  /** `X-Service-Cache: force`: also what the rules would skip (server tools, n > 1, hot sampling). */
  force: boolean;
  /** `X-Service-Cache-Clear: true`: the entry is not read, and the fresh answer replaces it. */
  clear: boolean;
}

export const CACHE_HEADER = "x-service-cache";
export const TTL_HEADER = "x-service-cache-ttl";
export const CLEAR_HEADER = "x-service-cache-clear";

/**
 * The workspace's own `cache` setting (`settings.cache` of `PATCH /workspaces/{id}`), as the limits stage found it in
 * the workspace's cached state (core/pipeline/stages/limits.ts), which runs before the cache stage.
 */
export function workspaceCacheSetting(ctx: RequestContext): CacheSetting | undefined {
  return ctx.workspaceCache;
}

/**
 * The request's decision, or undefined when it does not use the cache. A malformed header is a 400 naming it; a TTL
 * header on a request that does not use the cache is a warning.
 */
export function cacheDecisionOf(ctx: RequestContext, settings: CacheConfig): CacheDecision | undefined {
  const headers = ctx.headers;
  const asked = headers.get(CACHE_HEADER);
  let force = false;
  let setting: CacheSetting | undefined;
  if (asked !== null) {
    const value = asked.trim().toLowerCase();
    if (value === "false") return ignoredTtl(ctx);
    if (value !== "true" && value !== "force") throw errors.invalid(`X-Service-Cache: must be true, false or force, got "${clip(asked)}"`, { header: "X-Service-Cache" });
    force = value === "force";
    setting = { enabled: true };
  } else {
    setting = ctx.presetCache ?? ctx.principal?.record?.cache ?? workspaceCacheSetting(ctx);
    if (!setting?.enabled) return ignoredTtl(ctx);
  }
  const fromHeader = ttlHeader(headers, settings.maxTtlSeconds);
  const ttlSeconds = fromHeader ?? ctx.presetCache?.ttlSeconds ?? ctx.principal?.record?.cache?.ttlSeconds ?? ctx.workspaceCache?.ttlSeconds ?? settings.defaultTtlSeconds;
  return { ttlSeconds: Math.min(ttlSeconds, settings.maxTtlSeconds), force, clear: headers.get(CLEAR_HEADER)?.trim().toLowerCase() === "true" };
}

/** `X-Service-Cache-TTL`: whole seconds from 1 to `max`; anything else is a 400. */
function ttlHeader(headers: Headers, max: number): number | undefined {
  const raw = headers.get(TTL_HEADER);
  if (raw === null) return undefined;
  const text = raw.trim();
  const seconds = /^[0-9]{1,9}$/.test(text) ? Number(text) : Number.NaN;
  if (!(seconds >= 1 && seconds <= max)) {
    throw errors.invalid(`X-Service-Cache-TTL: must be whole seconds from 1 to ${max}, got "${clip(raw)}"`, { header: "X-Service-Cache-TTL" });
  }
  return seconds;
}

function ignoredTtl(ctx: RequestContext): undefined {
  if (ctx.headers.has(TTL_HEADER)) warn(ctx.request.warnings, "cache_ttl_ignored", "X-Service-Cache-TTL", "The response cache is off for this request, so X-Service-Cache-TTL was ignored");
  return undefined;
}

function clip(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

/** What the response cache did for a request: `X-Service-Cache`, `service_metadata.cache`, the metrics. */
export interface CacheReport {
  status: "hit" | "miss";
  /** Why the rules did not keep the answer (core/cache/rules.ts), when they did not. */
  skipped?: string;
}

/** The cache's request headers in the OpenAPI document of the inference routes. */
export const CACHE_PARAMETERS = [
  { in: "header" as const, name: "X-Service-Cache", required: false, schema: { type: "string" as const, enum: ["true", "false", "force"] }, description: 'Answer from the response cache and keep the answer there (README "Response cache"); `force` also for what the rules skip, `false` opts out of a key\'s or preset\'s default.' },
  { in: "header" as const, name: "X-Service-Cache-TTL", required: false, schema: { type: "integer" as const, minimum: 1 }, description: "Seconds the answer is kept (at most cache.max_ttl_seconds, 86,400 by default)." },
  { in: "header" as const, name: "X-Service-Cache-Clear", required: false, schema: { type: "string" as const, enum: ["true"] }, description: "Skip the lookup and replace the entry with the fresh answer." },
];
