/**
 * Bedrock's errors → GatewayErrors. A reply names its type in the `x-amzn-ErrorType` header (`Type:namespace`) or
 * the body's `__type` (`namespace#Type`), its sentence in `message`; a stream names an exception in the
 * `:exception-type` header of the frame (`throttlingException`), with the same `{message}` payload. Types map to the
 * gateway's error types as README "Cloud providers" lists: throttling and exceeded quotas are 429 (retryable
 * elsewhere), a refused request 400, Bedrock's own failures and unready models a retryable 502, a model time-out 524,
 * and refused credentials (a key, a signature, an expired session) a retryable 502 that never repeats AWS's sentence.
 */
import type { GatewayError } from "../../core/sdk/index.ts";
import { type ErrorFactory, mapUpstreamError, parseRetryAfter } from "../../core/sdk/provider.ts";

type Mapping = { type: Parameters<ErrorFactory>[0]; status: number; retryable: boolean; credentials?: boolean };

const BY_TYPE: Record<string, Mapping> = {
  ThrottlingException: { type: "rate_limit_exceeded", status: 429, retryable: true },
  ServiceQuotaExceededException: { type: "rate_limit_exceeded", status: 429, retryable: true },
  ValidationException: { type: "invalid_request", status: 400, retryable: false },
  ConflictException: { type: "invalid_request", status: 400, retryable: false },
  ResourceNotFoundException: { type: "not_found", status: 404, retryable: false },
  ModelTimeoutException: { type: "timeout", status: 524, retryable: true },
  ModelNotReadyException: { type: "provider_unavailable", status: 502, retryable: true },
  ModelErrorException: { type: "provider_unavailable", status: 502, retryable: true },
  ModelStreamErrorException: { type: "provider_unavailable", status: 502, retryable: true },
  InternalServerException: { type: "provider_unavailable", status: 502, retryable: true },
  ServiceUnavailableException: { type: "provider_unavailable", status: 502, retryable: true },
  AccessDeniedException: { type: "provider_unavailable", status: 502, retryable: true, credentials: true },
  UnrecognizedClientException: { type: "provider_unavailable", status: 502, retryable: true, credentials: true },
  InvalidSignatureException: { type: "provider_unavailable", status: 502, retryable: true, credentials: true },
  ExpiredTokenException: { type: "provider_unavailable", status: 502, retryable: true, credentials: true },
  MissingAuthenticationTokenException: { type: "provider_unavailable", status: 502, retryable: true, credentials: true },
  IncompleteSignatureException: { type: "provider_unavailable", status: 502, retryable: true, credentials: true },
};

/** Credential refusals after which the credentials are read again (a refreshed session may already be on disk). */
export const STALE_CREDENTIALS: ReadonlySet<string> = new Set(["ExpiredTokenException", "UnrecognizedClientException", "InvalidSignatureException"]);

/**
 * The one unavoidable text case: Bedrock reports an over-long prompt as a plain ValidationException ("Input is too
 * long for requested model.", "prompt is too long: N tokens > M maximum", "too many input tokens").
 */
const TOO_LONG = /input is too long|prompt is too long|too many (?:input )?tokens|exceeds? the (?:maximum|model'?s?) (?:context|input)/i;

/** `x-amzn-ErrorType` / `__type` / `code`, reduced to the bare type name. */
export function errorTypeOf(headers: Headers, body: unknown): string | undefined {
  const raw = headers.get("x-amzn-errortype") ?? field(body, "__type") ?? field(body, "code");
  if (raw === undefined) return undefined;
  const bare = raw.split(":")[0]!;
  return bare.slice(bare.lastIndexOf("#") + 1) || undefined;
}

function field(body: unknown, name: string): string | undefined {
  if (typeof body !== "object" || body === null) return undefined;
  const value = (body as Record<string, unknown>)[name];
  return typeof value === "string" ? value : undefined;
}

/** AWS's sentence (`message`, or `Message` in some replies). */
function messageOf(body: unknown): string | undefined {
  const text = field(body, "message") ?? field(body, "Message") ?? (typeof body === "string" ? body : undefined);
  return text?.trim().slice(0, 500) || undefined;
}

/** One AWS error, by type when it names one, else by status as every adapter maps it. */
export function bedrockError(type: string | undefined, status: number, body: unknown, headers: Headers, make: ErrorFactory): GatewayError {
  const mapping = type === undefined ? undefined : BY_TYPE[type];
  const message = messageOf(body);
  if (mapping === undefined) {
    const generic = type === undefined ? body : { error: { type, message } };
    return mapUpstreamError(status >= 200 && status < 300 ? 502 : status, generic, headers, make);
  }
  const metadata: Record<string, unknown> = { provider_code: type, provider_status: status };
  if (mapping.credentials) {
    return make(mapping.type, "Upstream provider rejected the gateway's credentials", { status: mapping.status, retryable: mapping.retryable, metadata });
  }
  if (message !== undefined) metadata.provider_message = message;
  if (mapping.type === "invalid_request" && message !== undefined && TOO_LONG.test(message)) {
    return make("context_length_exceeded", message, { status: 400, retryable: false, metadata });
  }
  const retryAfter = mapping.type === "rate_limit_exceeded" ? parseRetryAfter(headers) : undefined;
  return make(mapping.type, message ?? `Amazon Bedrock answered ${type}`, {
    status: mapping.status,
    retryable: mapping.retryable,
    metadata,
    ...(retryAfter !== undefined ? { retryAfter } : {}),
  });
}

/** A non-2xx reply (the kit's `mapError` signature). */
export function mapBedrockError(status: number, body: unknown, headers: Headers, make: ErrorFactory): GatewayError {
  return bedrockError(errorTypeOf(headers, body), status, body, headers, make);
}

/** An exception frame of a stream: `throttlingException` → ThrottlingException, mapped as a reply of that type would be. */
export function streamExceptionError(exceptionType: string, payload: unknown, make: ErrorFactory): GatewayError {
  const type = exceptionType.charAt(0).toUpperCase() + exceptionType.slice(1);
  return bedrockError(type, 200, payload, new Headers(), make);
}
