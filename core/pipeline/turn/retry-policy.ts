/**
 * What to do after a failed attempt: retry the same endpoint after a pause, or move on to the next one.
 * Transient upstream trouble (429, overload, 5xx, a dropped connection, a malformed body) is retried on the same
 * endpoint up to `maxRetries` times, after the upstream's Retry-After or a full-jitter backoff. A timeout, an
 * out-of-credit upstream (402) or rejected operator credentials move on at once: waiting would not help.
 */
import type { RoutingConfig } from "../../config/routing-limits.ts";
import type { GatewayError } from "../../errors.ts";
import { fullJitter } from "../../util/backoff.ts";

/** Milliseconds to wait before retrying the same endpoint, or undefined to move on to the next endpoint. */
export function retryDelay(error: GatewayError, retry: number, settings: RoutingConfig, random: () => number): number | undefined {
  if (retry >= settings.maxRetries || !transient(error)) return undefined;
  if (error.retryAfter !== undefined) return Math.ceil(error.retryAfter * 1000);
  return fullJitter(retry, settings.backoffBaseMs, settings.backoffMaxMs, random);
}

function transient(error: GatewayError): boolean {
  if (error.type !== "rate_limit_exceeded" && error.type !== "provider_overloaded" && error.type !== "provider_unavailable") return false;
  const upstreamStatus = error.metadata?.provider_status;
  return upstreamStatus !== 401 && upstreamStatus !== 403;
}
