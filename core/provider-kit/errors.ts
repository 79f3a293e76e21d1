/**
 * Upstream HTTP error → canonical GatewayError (mapped from structured fields first — HTTP status,
 * `error.type` / `error.code` — never by scanning message text except for the one unavoidable case below).
 * Shared by every HTTP adapter: OpenAI-style `{error:{message,type,code}}`, Anthropic-style `{type:"error",
 * error:{type,message}}`, OpenRouter-style `{error:{code:<status>,message,metadata}}` and vLLM-style flat
 * `{object:"error",message,type,code}` bodies are all read.
 */
import { DEFAULT_STATUS, GatewayError, type ErrorType, type GatewayErrorInit } from "../errors.ts";

/** Builds the error; adapters pass `call.helpers.error` so a third-party copy of this file still makes branded errors. */
export type ErrorFactory = (type: ErrorType, message: string, init?: GatewayErrorInit) => GatewayError;

const defaultFactory: ErrorFactory = (type, message, init) => new GatewayError(type, message, init);

/** The structured fields of an upstream error body, whichever shape it came in. */
export interface UpstreamErrorFields {
  message: string | undefined;
  type: string | undefined;
  code: string | number | undefined;
}

const MAX_MESSAGE = 500;

/** Reads `{error:{…}}`, `{type:"error",error:{…}}`, a flat `{message,type,code}` or a bare text body. */
export function upstreamErrorFields(body: unknown): UpstreamErrorFields {
  if (typeof body === "string") return { message: body.trim().slice(0, MAX_MESSAGE) || undefined, type: undefined, code: undefined };
  if (typeof body !== "object" || body === null) return { message: undefined, type: undefined, code: undefined };
  const outer = body as Record<string, unknown>;
  const inner = typeof outer.error === "object" && outer.error !== null ? (outer.error as Record<string, unknown>) : outer;
  const message = typeof inner.message === "string" ? inner.message.slice(0, MAX_MESSAGE) : typeof outer.error === "string" ? outer.error.slice(0, MAX_MESSAGE) : undefined;
  const type = typeof inner.type === "string" ? inner.type : undefined;
  const code = typeof inner.code === "string" || typeof inner.code === "number" ? inner.code : undefined;
  return { message, type, code };
}

/**
 * `error.code` / `error.type` values that pin a more precise canonical type than the status alone. Values are the
 * documented codes of OpenAI (`context_length_exceeded`, `string_above_max_length`, image codes,
 * `insufficient_quota`), llama.cpp (`exceed_context_size_error`) and Anthropic (`overloaded_error`).
 */
const CODE_TYPES: Record<string, { type: ErrorType; status?: number; retryable?: boolean }> = {
  context_length_exceeded: { type: "context_length_exceeded" },
  exceed_context_size_error: { type: "context_length_exceeded" },
  string_above_max_length: { type: "string_too_long" },
  invalid_image: { type: "invalid_image" },
  invalid_image_format: { type: "unsupported_image_format" },
  unsupported_image_media_type: { type: "unsupported_image_format" },
  invalid_base64_image: { type: "invalid_image" },
  invalid_image_url: { type: "invalid_image" },
  image_parse_error: { type: "invalid_image" },
  image_too_large: { type: "image_too_large" },
  image_file_too_large: { type: "image_too_large" },
  image_too_small: { type: "image_too_small" },
  failed_to_download_image: { type: "image_download_failed" },
  image_content_policy_violation: { type: "content_policy_violation" },
  content_policy_violation: { type: "content_policy_violation" },
  content_filter: { type: "content_policy_violation" },
  // OpenAI answers 429 `insufficient_quota` when the operator's account is out of credit: not a rate limit,
  // and not the client's fault either; another endpoint may have credit.
  insufficient_quota: { type: "payment_required", status: 402, retryable: true },
  overloaded_error: { type: "provider_overloaded", status: 529, retryable: true },
};

/**
 * The unavoidable text case: vLLM, Ollama and several hosted servers answer an over-long prompt with a plain 400 and
 * only a sentence ("This model's maximum context length is 4096 tokens…"). Applied to 400s without a known code only.
 */
const CONTEXT_LENGTH_TEXT = /maximum context length|context length exceeded|context window|exceeds the (?:available )?context/i;

/** Parses `Retry-After` (delta seconds or an HTTP date) or OpenAI's `retry-after-ms`; seconds, or undefined. */
export function parseRetryAfter(headers: Headers, nowMs: number = Date.now()): number | undefined {
  const ms = headers.get("retry-after-ms");
  if (ms !== null && ms.trim() !== "" && Number.isFinite(Number(ms)) && Number(ms) >= 0) return Number(ms) / 1000;
  const value = headers.get("retry-after");
  if (value === null || value.trim() === "") return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds : undefined;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - nowMs) / 1000);
}

interface Mapping {
  type: ErrorType;
  status: number;
  retryable: boolean;
  /** Hide the upstream's sentence from the client (it may quote part of the operator's key). */
  generic?: string;
}

/** Status → canonical type, the status the client sees and whether another attempt may succeed. */
function byStatus(status: number): Mapping {
  switch (status) {
    case 400:
      return { type: "invalid_request", status: 400, retryable: false };
    case 401:
    case 403:
      // The credentials are the operator's, not the client's: report an unavailable provider (and try another),
      // never a 401 that would tell the client its own key is wrong.
      return { type: "provider_unavailable", status: 502, retryable: true, generic: "Upstream provider rejected the gateway's credentials" };
    case 402:
      return { type: "payment_required", status: 402, retryable: true };
    case 404:
      return { type: "not_found", status: 404, retryable: false };
    case 408:
      return { type: "timeout", status: 408, retryable: true };
    case 413:
      return { type: "payload_too_large", status: 413, retryable: false };
    case 422:
      return { type: "unprocessable", status: 422, retryable: false };
    case 429:
      return { type: "rate_limit_exceeded", status: 429, retryable: true };
    case 504:
    case 524:
      return { type: "timeout", status: 524, retryable: true };
    case 529:
      return { type: "provider_overloaded", status: 529, retryable: true };
    default:
      // 500, 502, 503 and any other 5xx: the upstream failed; another attempt may not. 503 is the gateway's own
      // "temporarily unavailable" (its stores), so an upstream's 503 is reported as the upstream failure it is; an
      // upstream that says it is overloaded (529, `overloaded_error`) is 529.
      if (status >= 500) return { type: "provider_unavailable", status: 502, retryable: true };
      // A redirect (never followed: core/upstream-http) means the provider's base_url is wrong or moved: the
      // client's request is fine, and another endpoint may serve it.
      if (status >= 300 && status < 400) return { type: "provider_unavailable", status: 502, retryable: true };
      // Other 4xx (409, 410, 415, …): the request as sent cannot succeed here.
      return { type: "invalid_request", status: 400, retryable: false };
  }
}

/**
 * Maps an upstream failure to a GatewayError. `body` is the parsed JSON body (or its text when not JSON).
 * Metadata carries `provider_code` (the upstream's code/type, else its status), `provider_status` and
 * `provider_message` (the upstream's sentence; omitted for credential failures). The pipeline strips metadata
 * from 500s, and no mapping here produces a 500.
 */
export function mapUpstreamError(
  status: number,
  body: unknown,
  headers: Headers = new Headers(),
  make: ErrorFactory = defaultFactory,
): GatewayError {
  const fields = upstreamErrorFields(body);
  const base = byStatus(status);
  let mapping: Mapping = base;
  const coded = codeMapping(fields);
  if (coded?.type === "provider_overloaded") {
    // Anthropic's `overloaded_error` can arrive on a 500 or a 503 as well as its usual 529.
    mapping = { type: "provider_overloaded", status: 529, retryable: true };
  } else if (coded && status < 500 && base.generic === undefined) {
    // A documented code refines a client-side status (a 400 `context_length_exceeded`, a 429 `insufficient_quota`).
    mapping = { type: coded.type, status: coded.status ?? DEFAULT_STATUS[coded.type], retryable: coded.retryable ?? false };
  } else if (status === 400 && coded === undefined && fields.message !== undefined && CONTEXT_LENGTH_TEXT.test(fields.message)) {
    mapping = { type: "context_length_exceeded", status: 400, retryable: false };
  }
  const metadata: Record<string, unknown> = { provider_code: fields.code ?? fields.type ?? status, provider_status: status };
  if (mapping.generic === undefined && fields.message !== undefined) metadata.provider_message = fields.message;
  const init: GatewayErrorInit = { status: mapping.status, retryable: mapping.retryable, metadata };
  // An upstream's Retry-After is honoured whenever waiting could help: a rate limit, an overload, a 503.
  if (mapping.type === "rate_limit_exceeded" || mapping.type === "provider_overloaded" || status === 503) {
    const retryAfter = parseRetryAfter(headers);
    if (retryAfter !== undefined) init.retryAfter = retryAfter;
  }
  const message = mapping.generic ?? fields.message ?? `Upstream provider returned HTTP ${status}`;
  return make(mapping.type, message, init);
}

function codeMapping(fields: UpstreamErrorFields): (typeof CODE_TYPES)[string] | undefined {
  for (const key of [fields.code, fields.type]) {
    if (typeof key === "string" && Object.hasOwn(CODE_TYPES, key)) return CODE_TYPES[key];
  }
  return undefined;
}
