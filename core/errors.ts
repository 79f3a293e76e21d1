/** Canonical errors (spec "Errors"): one branded class, one exhaustive type → status table. */

/** The spec's `error_type` values, stable across wire formats. */
export const ERROR_TYPES = [
  "context_length_exceeded",
  "max_tokens_exceeded",
  "token_limit_exceeded",
  "string_too_long",
  "authentication",
  "permission_denied",
  "payment_required",
  "rate_limit_exceeded",
  "provider_overloaded",
  "provider_unavailable",
  "invalid_request",
  "invalid_prompt",
  "not_found",
  "precondition_failed",
  "payload_too_large",
  "unprocessable",
  "content_policy_violation",
  "refusal",
  "invalid_image",
  "image_too_large",
  "image_too_small",
  "unsupported_image_format",
  "image_not_found",
  "image_download_failed",
  "server",
  "timeout",
  "unmapped",
] as const;

export type ErrorType = (typeof ERROR_TYPES)[number];

const ERROR_TYPE_SET: ReadonlySet<string> = new Set(ERROR_TYPES);

/** True when `value` is one of the spec's `error_type` values (e.g. declared by an upstream gateway of our kind). */
export function isErrorType(value: unknown): value is ErrorType {
  return typeof value === "string" && ERROR_TYPE_SET.has(value);
}

/**
 * Default HTTP status per error type. `satisfies Record<ErrorType, …>` makes the table exhaustive at compile time.
 * Spec-driven choices: 409 preset conflict is `precondition_failed` (passed explicitly), 410 expired batch is
 * `not_found` (passed explicitly), upstream timeouts are 408/524 by where they happened (passed explicitly).
 */
export const DEFAULT_STATUS = {
  context_length_exceeded: 400,
  max_tokens_exceeded: 400,
  token_limit_exceeded: 400,
  string_too_long: 400,
  authentication: 401,
  permission_denied: 403,
  payment_required: 402,
  rate_limit_exceeded: 429,
  provider_overloaded: 529,
  provider_unavailable: 502,
  invalid_request: 400,
  invalid_prompt: 400,
  not_found: 404,
  precondition_failed: 409,
  payload_too_large: 413,
  unprocessable: 422,
  content_policy_violation: 400,
  refusal: 400,
  invalid_image: 400,
  image_too_large: 400,
  image_too_small: 400,
  unsupported_image_format: 400,
  image_not_found: 404,
  image_download_failed: 400,
  server: 500,
  timeout: 408,
  unmapped: 500,
} as const satisfies Record<ErrorType, number>;

const BRAND = Symbol.for("inference-gateway.error");

export interface GatewayErrorInit {
  status?: number;
  metadata?: Record<string, unknown>;
  /** Whether another attempt (same or next endpoint) may succeed. */
  retryable?: boolean;
  /** Seconds the upstream asked us to wait (Retry-After). */
  retryAfter?: number;
  cause?: unknown;
}

/** The one error type the gateway throws; everything else is rendered as a 500 without internals. */
export class GatewayError extends Error {
  readonly [BRAND] = true;
  readonly type: ErrorType;
  readonly status: number;
  readonly metadata: Record<string, unknown> | undefined;
  readonly retryable: boolean;
  readonly retryAfter: number | undefined;

  constructor(type: ErrorType, message: string, init: GatewayErrorInit = {}) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = "GatewayError";
    this.type = type;
    this.status = init.status ?? DEFAULT_STATUS[type];
    this.metadata = init.metadata;
    this.retryable = init.retryable ?? false;
    this.retryAfter = init.retryAfter;
  }
}

/** Brand check that also works for errors thrown by a third-party module's copy of this class. */
export function isGatewayError(value: unknown): value is GatewayError {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
}

/** Turns anything thrown into a GatewayError; unknown failures become a generic 500 (no internals leak). */
export function toGatewayError(value: unknown): GatewayError {
  if (isGatewayError(value)) return value;
  return new GatewayError("server", "Internal server error", { cause: value });
}

/** Shorthands for the errors raised most often. */
export const errors = {
  invalid: (message: string, metadata?: Record<string, unknown>) =>
    new GatewayError("invalid_request", message, { metadata }),
  unauthenticated: (message = "Missing authentication header") => new GatewayError("authentication", message),
  forbidden: (message = "Only management keys can perform this operation") =>
    new GatewayError("permission_denied", message),
  notFound: (message = "Resource not found") => new GatewayError("not_found", message),
  paymentRequired: (message = "Insufficient credits, add more") => new GatewayError("payment_required", message),
};
