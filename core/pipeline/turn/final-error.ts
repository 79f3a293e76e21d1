/**
 * The error a turn ends with when no endpoint served it. Its status says what KIND of failure it
 * was, never which endpoint happened to be tried last: a client retrying on 429 must not get a 502 one time and a
 * 429 the next for the same outage.
 *
 * - The walk stopped on a failure that no other endpoint could fix (a 400 context length, a 404, an adapter bug):
 *   that failure, as it is — it is about the request, not about the endpoints.
 * - Every failure of one kind: that kind. All rate limits → 429 (Retry-After: the soonest any endpoint named);
 *   all overloaded → 529; all time-outs → 524 when every one came from upstreams, else 408; all the same other
 *   type (say every upstream's own 402) → that one.
 * - A mix (a 5xx here, a 429 there, a refused connection, a bad body, a redirect) → 502 `provider_unavailable`.
 *
 * 503 is never produced here for upstream trouble: it is the gateway's own unavailability (its credit store down).
 * With several attempts, `metadata.previous_errors` lists each one (provider, model, status, error type, the
 * upstream's own status); a single attempt's error is returned as it is.
 */
import { GatewayError } from "../../errors.ts";
import type { Attempt } from "../context.ts";

/** One failed attempt of a walk (a refusal that moved on to the next model is one too). */
export interface Failure {
  attempt: Attempt;
  error: GatewayError;
}

export function finalError(failures: readonly Failure[], clientGone: boolean): GatewayError {
  const last = failures.at(-1);
  if (!last) {
    if (clientGone) return new GatewayError("timeout", "Client closed the request", { status: 408 });
    return new GatewayError("provider_unavailable", "No endpoint could serve this request: every candidate is cooling down", { status: 503, retryable: true, retryAfter: 1 });
  }
  // One attempt: its own error is the whole story (and its status is already the one of its kind).
  if (failures.length === 1) return last.error;
  const previous = failures.map(attemptRecord);
  // The walk stopped on it: another endpoint would not have helped (or the client left): it is the answer.
  if (!last.error.retryable || clientGone) return withAttempts(last.error, last.error.status, previous);
  // A refusal moved on to the next model; what the later endpoints did decides the kind.
  const counted = failures.filter((f) => f.error.type !== "refusal");
  const kinds = new Set(counted.map((f) => f.error.type));
  if (kinds.size === 1) return withAttempts(last.error, statusOfKind(counted), previous, soonestRetryAfter(counted));
  const summary = counted.map((f) => `${f.attempt.providerId}: ${f.error.status} ${f.error.type}`).join(", ");
  return new GatewayError("provider_unavailable", `No endpoint could serve this request (${summary})`, {
    status: 502,
    retryable: true,
    metadata: { previous_errors: previous },
  });
}

/** The status of failures that are all of one type. */
function statusOfKind(failures: readonly Failure[]): number {
  const type = failures[0]!.error.type;
  switch (type) {
    case "rate_limit_exceeded":
      return 429;
    case "provider_overloaded":
      return 529;
    case "provider_unavailable":
      return 502;
    case "timeout":
      // 524: upstreams timed out at their edge; 408: the gateway stopped waiting (first byte / answer time-out).
      return failures.every((f) => f.error.status === 524) ? 524 : 408;
    default:
      return failures.at(-1)!.error.status;
  }
}

/** The soonest an endpoint said it could be tried again, when any said so. */
function soonestRetryAfter(failures: readonly Failure[]): number | undefined {
  let soonest: number | undefined;
  for (const { error } of failures) if (error.retryAfter !== undefined && (soonest === undefined || error.retryAfter < soonest)) soonest = error.retryAfter;
  return soonest;
}

function attemptRecord({ attempt, error }: Failure): Record<string, unknown> {
  const record: Record<string, unknown> = { provider: attempt.providerId, model: attempt.model, code: error.status, status: error.status, error_type: error.type };
  const upstream = error.metadata?.provider_status;
  if (typeof upstream === "number") record.provider_status = upstream;
  return record;
}

function withAttempts(error: GatewayError, status: number, previous: Record<string, unknown>[], retryAfter = error.retryAfter): GatewayError {
  return new GatewayError(error.type, error.message, {
    status,
    metadata: { ...error.metadata, previous_errors: previous },
    retryable: error.retryable,
    ...(retryAfter !== undefined ? { retryAfter } : {}),
    ...(error.cause !== undefined ? { cause: error.cause } : {}),
  });
}
