/**
 * Anthropic error bodies `{type: "error", error: {type, message}}` → GatewayError. The HTTP status decides through
 * the shared table (`providers/shared/errors.ts`); an in-stream `error` event has no status, so its `error.type`
 * supplies the one Anthropic documents for it.
 */
import type { GatewayError } from "../../core/sdk/index.ts";
import { type ErrorFactory, mapUpstreamError, upstreamErrorFields } from "../../core/sdk/provider.ts";

/** Anthropic's documented error types and their HTTP statuses. */
export const ANTHROPIC_ERROR_STATUS: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
};

/**
 * The one unavoidable text case: Anthropic reports an over-long prompt as a plain `invalid_request_error` whose
 * only distinguishing mark is the sentence "prompt is too long: N tokens > M maximum".
 */
const PROMPT_TOO_LONG = /prompt is too long/i;

/** Maps a non-2xx reply, or (status 200) an in-stream error event. */
export function mapAnthropicError(status: number, body: unknown, headers: Headers, make: ErrorFactory): GatewayError {
  const fields = upstreamErrorFields(body);
  const effective = status >= 200 && status < 300 ? (ANTHROPIC_ERROR_STATUS[fields.type ?? ""] ?? 500) : status;
  if (effective === 400 && fields.message !== undefined && PROMPT_TOO_LONG.test(fields.message)) {
    return make("context_length_exceeded", fields.message, {
      status: 400,
      retryable: false,
      metadata: { provider_code: fields.type ?? 400, provider_status: effective, provider_message: fields.message },
    });
  }
  return mapUpstreamError(effective, body, headers, make);
}
