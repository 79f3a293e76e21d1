/**
 * Google error bodies `{error: {code, message, status, details}}` → GatewayError. The HTTP status decides through
 * the shared table (`providers/shared/errors.ts`), with Google's `status` string as `provider_code`; an in-stream
 * error chunk has no HTTP status, so its `status` / `code` supply one.
 */
import type { GatewayError } from "../../core/sdk/index.ts";
import { type ErrorFactory, mapUpstreamError } from "../../core/sdk/provider.ts";
import type { GeminiError } from "./wire.ts";

/** Google RPC status → HTTP status, as Google documents the pairing. */
const RPC_STATUS: Record<string, number> = {
  INVALID_ARGUMENT: 400,
  FAILED_PRECONDITION: 400,
  OUT_OF_RANGE: 400,
  UNAUTHENTICATED: 401,
  PERMISSION_DENIED: 403,
  NOT_FOUND: 404,
  RESOURCE_EXHAUSTED: 429,
  INTERNAL: 500,
  UNAVAILABLE: 503,
  DEADLINE_EXCEEDED: 504,
};

/**
 * The unavoidable text case: an over-long prompt is a plain INVALID_ARGUMENT whose only mark is the sentence
 * "The input token count (N) exceeds the maximum number of tokens allowed (M)".
 */
const TOO_MANY_TOKENS = /input token count.*exceeds the maximum/i;

function errorOf(body: unknown): GeminiError {
  if (typeof body !== "object" || body === null) return typeof body === "string" ? { message: body.slice(0, 500) } : {};
  const inner = (body as { error?: unknown }).error;
  return typeof inner === "object" && inner !== null ? (inner as GeminiError) : {};
}

/** Maps a non-2xx reply, or (status 200) an in-stream error chunk. */
export function mapGeminiError(status: number, body: unknown, headers: Headers, make: ErrorFactory): GatewayError {
  const error = errorOf(body);
  const rpc = typeof error.status === "string" ? error.status : undefined;
  const code = typeof error.code === "number" ? error.code : undefined;
  let effective = status >= 200 && status < 300 ? (RPC_STATUS[rpc ?? ""] ?? code ?? 500) : status;
  const message = typeof error.message === "string" ? error.message : undefined;
  const metadata = { provider_code: rpc ?? code ?? effective, provider_status: effective };
  // Google answers a bad API key with 400 INVALID_ARGUMENT + reason API_KEY_INVALID: a credential failure.
  if (error.details?.some((d) => d.reason === "API_KEY_INVALID")) effective = 401;
  if (effective === 400 && message !== undefined && TOO_MANY_TOKENS.test(message)) {
    return make("context_length_exceeded", message, { status: 400, retryable: false, metadata: { ...metadata, provider_message: message } });
  }
  if (effective === 503 && message !== undefined && /overloaded/i.test(message)) {
    // Google says "The model is overloaded" with a 503 UNAVAILABLE: an overload (529), not a failed upstream.
    return make("provider_overloaded", message, { status: 529, retryable: true, metadata: { ...metadata, provider_message: message } });
  }
  if (rpc === "FAILED_PRECONDITION") {
    // e.g. "User location is not supported" or billing not enabled: the operator's setup, not the client's request.
    return make("provider_unavailable", message ?? "Upstream precondition failed", { status: 502, retryable: true, metadata: message ? { ...metadata, provider_message: message } : metadata });
  }
  return mapUpstreamError(effective, { error: { message, code: rpc ?? code } }, headers, make);
}
