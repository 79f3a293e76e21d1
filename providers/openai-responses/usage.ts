/** Responses `usage`, finish and failure → canonical (shared by the result and the stream translation). */
import type { Finish, GatewayError, ProviderCall, Usage } from "../../core/sdk/index.ts";
import { isErrorType, mapUpstreamError, openAiFamilyUsage } from "../../core/sdk/provider.ts";
import type { WireError, WireResponse, WireUsage } from "./wire.ts";

/** `input_tokens` already includes cached tokens (OpenAI semantics), so it is `input.total` as is. */
export function mapUsage(usage: WireUsage): Usage {
  return openAiFamilyUsage(
    {
      input: usage.input_tokens,
      cacheRead: usage.input_tokens_details?.cached_tokens,
      cacheWrite: usage.input_tokens_details?.cache_write_tokens,
      output: usage.output_tokens,
      reasoning: usage.output_tokens_details?.reasoning_tokens,
    },
    usage,
  );
}

/**
 * Finish from a finished result: `incomplete` names its reason (`max_output_tokens` → length, `content_filter`);
 * a result that asks for function calls ends with `tool_calls`; anything else stopped normally. `raw` keeps the
 * upstream's own words.
 */
export function mapFinish(response: WireResponse, sawToolCall: boolean): Finish {
  if (response.status === "incomplete") {
    const reason = response.incomplete_details?.reason;
    if (reason === "max_output_tokens") return { reason: "length", raw: reason };
    if (reason === "content_filter") return { reason: "content_filter", raw: reason };
    return { reason: "other", raw: reason ?? "incomplete" };
  }
  if (sawToolCall) return { reason: "tool_calls", raw: response.status ?? "completed" };
  return { reason: "stop", raw: response.status ?? "completed" };
}

/** Failed-result `error.code` strings → the HTTP status the same failure would have had. */
const CODE_STATUS: Record<string, number> = {
  rate_limit_exceeded: 429,
  server_error: 502,
  vector_store_timeout: 504,
};

/**
 * A failed result's `error` (or a stream `error` event) → GatewayError. A canonical `error_type` from a gateway of
 * our kind wins; otherwise the code picks the status and the shared upstream-error table does the rest.
 */
export function mapFailure(error: WireError | null | undefined, declaredType: string | undefined, call: ProviderCall): GatewayError {
  const message = error?.message ?? "Upstream provider failed";
  const code = typeof error?.code === "string" ? error.code : undefined;
  const canonical = declaredType ?? (typeof error?.metadata?.error_type === "string" ? error.metadata.error_type : undefined);
  const metadata: Record<string, unknown> = { provider_code: code ?? canonical ?? "failed", provider_message: message };
  if (isErrorType(canonical)) {
    return call.helpers.error(canonical, message, { metadata });
  }
  if (code === "invalid_prompt") return call.helpers.error("invalid_prompt", message, { metadata });
  const status = typeof error?.code === "number" && error.code >= 400 && error.code < 600 ? error.code : (code ? (CODE_STATUS[code] ?? 400) : 502);
  return mapUpstreamError(status, { error: { message, code, type: error?.type } }, new Headers(), call.helpers.error);
}
