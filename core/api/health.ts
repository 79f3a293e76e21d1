/**
 * `GET /health/ready`: readiness for load balancers (README "Operations: store outages"). 200 when every configured
 * store answers within a second; otherwise the 503 envelope naming the failing store, with `Retry-After`, so the node
 * is taken out while its database or Redis is away. `GET /health` (liveness) stays in catalog.ts and touches nothing.
 */
import { Elysia } from "elysia";
import type { Deps } from "../deps.ts";
import { envelopeOf, errorResponse, jsonResponse } from "../http/envelope.ts";
import { checkReadiness, type Readiness } from "../ops/readiness.ts";
import { storeLabel, storeUnavailable, type StoreName } from "../ops/unavailable.ts";

export function healthRoutes(deps: Deps) {
  return new Elysia({ name: "routes:health" }).get(
    "/health/ready",
    async () => readinessResponse(await checkReadiness({ store: deps.store, kv: deps.kv, redis: deps.config.redisUrl !== undefined })),
    { detail: { summary: "Readiness: every configured store answers", tags: ["operations"] } },
  );
}

/** 200 with the checks, or the 503 envelope naming the first failing store with every check in its metadata. */
export function readinessResponse(readiness: Pick<Readiness, "checks" | "failing">, detail?: string): Response {
  if (readiness.failing === undefined) return jsonResponse({ status: "ready", checks: readiness.checks });
  return notReady(readiness.failing, { checks: readiness.checks }, detail);
}

/** The 503 of a store that is not there (yet): the unavailability envelope, its message naming the store. */
export function notReady(store: StoreName, metadata: Record<string, unknown>, detail?: string): Response {
  const base = storeUnavailable(store);
  const envelope = envelopeOf(base);
  envelope.error.message = `Not ready: ${detail ?? `${storeLabel(store)} cannot be reached`}`;
  envelope.error.metadata = { ...envelope.error.metadata, ...metadata };
  return errorResponse(base, envelope);
}
