/**
 * A request's record of its upstream calls (`ctx.attempts`: service_metadata, metrics, traces, generation details)
 * and what their failures tell the endpoint's circuit breaker (`ctx.deps.routing.health`), kept in one place for the
 * model turn (fallbacks.ts) and image calls (core/images/generate.ts) alike.
 */
import type { GatewayError } from "../../errors.ts";
import type { Endpoint } from "../../routing/catalog.ts";
import { profileOf } from "../../routing/profile.ts";
import type { Attempt, RequestContext } from "../context.ts";

/** Records the start of a call to `endpoint` (at `tier`, when routing planned one). */
export function beginAttempt(ctx: RequestContext, endpoint: Endpoint, tier?: string): Attempt {
  const attempt: Attempt = { model: endpoint.model.id, providerId: endpoint.provider.id, startedAt: ctx.deps.clock.now(), ...(tier ? { tier } : {}) };
  ctx.attempts.push(attempt);
  return attempt;
}

/** The upstream answered: the attempt ends with 200. */
export function attemptAnswered(ctx: RequestContext, attempt: Attempt): void {
  attempt.endedAt = ctx.deps.clock.now();
  attempt.status = 200;
}

/** The attempt failed with `error`: its status and type are recorded. */
export function attemptFailed(ctx: RequestContext, attempt: Attempt, error: GatewayError): void {
  attempt.endedAt = ctx.deps.clock.now();
  attempt.status = error.status;
  attempt.errorType = error.type;
}

/** A retryable failure (a timeout among them) counts against the endpoint's breaker: one incident per request. */
export function reportEndpointFailure(ctx: RequestContext, endpoint: Endpoint, error: GatewayError): void {
  ctx.deps.routing.health.recordFailure(profileOf(endpoint).key, error);
}
