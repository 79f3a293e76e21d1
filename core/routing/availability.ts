/**
 * The error of a request no endpoint can serve, with `availability` metadata (the peer's): which constraints
 * excluded the model's endpoints (404 `constraint_filtered`), naming the first one in `constraint`.
 */
import { GatewayError } from "../errors.ts";
import type { Exclusion } from "./filter.ts";

/** Builds the error for an empty route plan. */
export function noEndpointError(requested: readonly string[], excluded: readonly Exclusion[]): GatewayError {
  const models = requested.map((m) => `"${m}"`).join(", ");
  const affected = [...new Set(excluded.map((e) => e.endpoint.provider.id))];
  const reasons = [...new Set(excluded.map((e) => e.reason))];
  const first = excluded[0];
  const message =
    reasons.length > 0 ? `No endpoint of ${models} satisfies the request's routing constraints (${reasons.join(", ")})` : `No endpoint of ${models} is available`;
  return new GatewayError("not_found", message, {
    status: 404,
    metadata: {
      availability: {
        code: reasons.length > 0 ? "constraint_filtered" : "no_endpoints",
        retryable: false,
        requested_models: requested,
        affected_providers: affected,
        excluded_by: reasons,
        ...(first ? { constraint: { field: first.reason, detail: first.detail } } : {}),
      },
    },
  });
}
