/**
 * The gateway's own unavailability (README "Operations: store outages"): a store it needs cannot be reached. Every
 * such failure is a 503 with `Retry-After: 1` and `metadata.availability`, the shape the limits stage already gives
 * a credit check without Redis, so clients and load balancers see one answer whichever store is down, never a 500.
 */
import { GatewayError, isGatewayError } from "../errors.ts";

/** The stores, as named in answers, logs and readiness. */
export type StoreName = "database" | "redis";

/** How messages name a store: "the database", "Redis". */
export function storeLabel(store: StoreName): string {
  return store === "redis" ? "Redis" : "the database";
}

/** `metadata.availability.code` of every unavailability answer (also the limits stage's). */
const CODE = "temporarily_unavailable";

/** The 503 for a store that cannot be reached; `cause` is kept for logs, never rendered. */
export function storeUnavailable(store: StoreName, cause?: unknown): GatewayError {
  return new GatewayError("provider_unavailable", `Service temporarily unavailable: ${storeLabel(store)} cannot be reached right now`, {
    status: 503,
    retryable: true,
    retryAfter: 1,
    cause,
    metadata: { availability: { code: CODE, retryable: true, retry_after: 1, store } },
  });
}

/** True for the gateway's own unavailability (a store down, credits uncheckable), not for an upstream's 503. */
export function isUnavailable(error: unknown): boolean {
  if (!isGatewayError(error) || error.status !== 503) return false;
  const availability = error.metadata?.availability as { code?: unknown } | undefined;
  return availability?.code === CODE;
}

/** Which store an unavailability names (undefined for one that names none, e.g. the credit check). */
export function unavailableStore(error: unknown): StoreName | undefined {
  if (!isGatewayError(error)) return undefined;
  const store = (error.metadata?.availability as { store?: unknown } | undefined)?.store;
  return store === "database" || store === "redis" ? store : undefined;
}

/**
 * Opening a store failed because it could not be reached (not because it is misconfigured): start-up waits and tries
 * again (core/ops/store-wait.ts) instead of exiting at once.
 */
export class StoreUnreachableError extends Error {
  override readonly name = "StoreUnreachableError";
  constructor(
    readonly store: StoreName,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
