/**
 * The edge's bounds on reading a request (README "Limits of the HTTP edge"), with their defaults. They are optional
 * in GatewayConfig so hand-built configs (tests, the bench) need not name them.
 */
import type { GatewayConfig } from "../config/types.ts";
import type { BodyLimits } from "./body-read.ts";

/** `server.body_timeout_ms`: the whole body must have arrived this long after the headers. */
export const DEFAULT_BODY_TIMEOUT_MS = 60_000;
/** `server.body_grace_ms`: how long a body may take before the rate rule applies. */
export const DEFAULT_BODY_GRACE_MS = 5_000;
/** `server.body_min_bytes_per_second`: the average a body must keep after the grace (0: no rate rule). */
export const DEFAULT_BODY_MIN_BYTES_PER_SECOND = 4_096;
/** `server.max_json_depth`: nesting levels of arrays and objects a body may have. */
export const DEFAULT_MAX_JSON_DEPTH = 64;

export function bodyLimitsOf(config: GatewayConfig): BodyLimits {
  return {
    maxBytes: config.bodyLimitBytes,
    timeoutMs: config.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS,
    graceMs: config.bodyGraceMs ?? DEFAULT_BODY_GRACE_MS,
    minBytesPerSecond: config.bodyMinBytesPerSecond ?? DEFAULT_BODY_MIN_BYTES_PER_SECOND,
    maxDepth: config.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH,
  };
}
