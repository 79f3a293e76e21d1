/**
 * The `routing` and `limits` sections of the config file (README "Routing and limits"): their TypeBox schemas,
 * their parsed shapes and their defaults. Kept apart from file-schema.ts so each section reads as one unit.
 */
import { Type, type Static } from "@sinclair/typebox";

const Ms = (minimum = 1) => Type.Optional(Type.Integer({ minimum }));

/** Per-key rate limits: `requests` and/or `tokens` per `interval_seconds` (also the body of `rate_limit` on /keys). */
const MAX_INT32 = 2_147_483_647;

export const RateLimitSchema = Type.Object(
  {
    // The store keeps these counts in 32-bit integer columns (Postgres `integer`).
    requests: Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: MAX_INT32 }), Type.Null()])),
    tokens: Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: MAX_INT32 }), Type.Null()])),
    interval_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 86_400 })),
  },
  { additionalProperties: false },
);

/** Config file `routing`: timeouts, retries, circuit breaker, sticky sessions, endpoint statistics. */
export const RoutingFileSchema = Type.Object(
  {
    first_byte_timeout_ms: Ms(),
    request_timeout_ms: Ms(),
    request_timeout_margin: Type.Optional(Type.Number({ minimum: 1 })),
    assumed_output_tokens_per_second: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
    idle_timeout_ms: Ms(),
    retry_deadline_ms: Ms(0),
    max_retries: Type.Optional(Type.Integer({ minimum: 0, maximum: 10 })),
    backoff_base_ms: Ms(0),
    backoff_max_ms: Ms(0),
    breaker: Type.Optional(
      Type.Object(
        { failure_threshold: Ms(), failure_window_ms: Ms(), cooldown_ms: Ms() },
        { additionalProperties: false },
      ),
    ),
    sticky_ttl_ms: Ms(),
    stats: Type.Optional(Type.Object({ samples: Ms(), sync_interval_ms: Ms() }, { additionalProperties: false })),
  },
  { additionalProperties: false },
);

/** Config file `limits`: default per-key rate limits and credit reservation sizing. */
export const LimitsFileSchema = Type.Object(
  {
    rate_limit: Type.Optional(RateLimitSchema),
    default_max_output_tokens: Ms(),
    reservation_ttl_ms: Ms(),
  },
  { additionalProperties: false },
);

/** A rate limit as enforced: absent counts are unlimited. */
export interface RateLimitSetting {
  requests: number | null;
  tokens: number | null;
  intervalSeconds: number;
}

/** Parsed `routing` section. */
export interface RoutingConfig {
  /** Streams: until the first output event; beyond it the attempt fails with 408 and the next endpoint is tried. */
  firstByteTimeoutMs: number;
  /**
   * Non-streamed calls: the least time an answer is given (an upstream answers only once the whole generation is
   * done). The bound of one call is max(this, margin × max_tokens ÷ the endpoint's output speed); a provider's
   * `timeouts.request_ms` replaces it (core/pipeline/turn/timeouts.ts).
   */
  requestTimeoutMs: number;
  /** How much longer than the expected generation time a non-streamed call may take. */
  requestTimeoutMargin: number;
  /** Output speed assumed for an endpoint nobody has measured and whose provider declares none. */
  assumedOutputTokensPerSecond: number;
  /** Streams: the longest silence between two events once output flows (then an in-band 524). */
  idleTimeoutMs: number;
  /** No new attempt and no backoff sleep starts later than this after the request arrived. */
  retryDeadlineMs: number;
  /** Extra attempts on the same endpoint for a transient failure, before moving on. */
  maxRetries: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  /** Failures within `failureWindowMs` that open an endpoint's breaker for `cooldownMs`. */
  breaker: { failureThreshold: number; failureWindowMs: number; cooldownMs: number };
  /** How long a session stays pinned to the provider that served it (refreshed on use). */
  stickyTtlMs: number;
  /** Samples kept per endpoint for latency/throughput percentiles, and how often they are shared through the kv. */
  stats: { samples: number; syncIntervalMs: number };
}

/** Parsed `limits` section. */
export interface LimitsConfig {
  /** Applied to keys without their own `rate_limit`; null = no default limit. */
  rateLimit: RateLimitSetting | null;
  /** Output tokens assumed when neither the request nor the endpoint bounds them. */
  defaultMaxOutputTokens: number;
  /** A credit reservation left by a crashed request expires after this long. */
  reservationTtlMs: number;
}

export const DEFAULT_ROUTING: RoutingConfig = Object.freeze({
  firstByteTimeoutMs: 60_000,
  requestTimeoutMs: 60_000,
  requestTimeoutMargin: 2,
  assumedOutputTokensPerSecond: 20,
  idleTimeoutMs: 120_000,
  retryDeadlineMs: 30_000,
  maxRetries: 1,
  backoffBaseMs: 100,
  backoffMaxMs: 2_000,
  breaker: Object.freeze({ failureThreshold: 3, failureWindowMs: 60_000, cooldownMs: 30_000 }),
  stickyTtlMs: 3_600_000,
  stats: Object.freeze({ samples: 100, syncIntervalMs: 5_000 }),
});

export const DEFAULT_LIMITS: LimitsConfig = Object.freeze({
  rateLimit: null,
  defaultMaxOutputTokens: 4_096,
  reservationTtlMs: 900_000,
});

/** The `routing` section with defaults filled in. */
export function toRoutingConfig(r: Static<typeof RoutingFileSchema> | undefined): RoutingConfig {
  const d = DEFAULT_ROUTING;
  return {
    firstByteTimeoutMs: r?.first_byte_timeout_ms ?? d.firstByteTimeoutMs,
    requestTimeoutMs: r?.request_timeout_ms ?? d.requestTimeoutMs,
    requestTimeoutMargin: r?.request_timeout_margin ?? d.requestTimeoutMargin,
    assumedOutputTokensPerSecond: r?.assumed_output_tokens_per_second ?? d.assumedOutputTokensPerSecond,
    idleTimeoutMs: r?.idle_timeout_ms ?? d.idleTimeoutMs,
    retryDeadlineMs: r?.retry_deadline_ms ?? d.retryDeadlineMs,
    maxRetries: r?.max_retries ?? d.maxRetries,
    backoffBaseMs: r?.backoff_base_ms ?? d.backoffBaseMs,
    backoffMaxMs: r?.backoff_max_ms ?? d.backoffMaxMs,
    breaker: {
      failureThreshold: r?.breaker?.failure_threshold ?? d.breaker.failureThreshold,
      failureWindowMs: r?.breaker?.failure_window_ms ?? d.breaker.failureWindowMs,
      cooldownMs: r?.breaker?.cooldown_ms ?? d.breaker.cooldownMs,
    },
    stickyTtlMs: r?.sticky_ttl_ms ?? d.stickyTtlMs,
    stats: { samples: r?.stats?.samples ?? d.stats.samples, syncIntervalMs: r?.stats?.sync_interval_ms ?? d.stats.syncIntervalMs },
  };
}

/** The `limits` section with defaults filled in. */
export function toLimitsConfig(l: Static<typeof LimitsFileSchema> | undefined): LimitsConfig {
  return {
    rateLimit: l?.rate_limit ? toRateLimitSetting(l.rate_limit) : DEFAULT_LIMITS.rateLimit,
    defaultMaxOutputTokens: l?.default_max_output_tokens ?? DEFAULT_LIMITS.defaultMaxOutputTokens,
    reservationTtlMs: l?.reservation_ttl_ms ?? DEFAULT_LIMITS.reservationTtlMs,
  };
}

/** A `rate_limit` object (config or /keys body) as enforced; null when it limits nothing. */
export function toRateLimitSetting(r: Static<typeof RateLimitSchema>): RateLimitSetting | null {
  const requests = r.requests ?? null;
  const tokens = r.tokens ?? null;
  if (requests === null && tokens === null) return null;
  return { requests, tokens, intervalSeconds: r.interval_seconds ?? 60 };
}

/** The routing settings of a config (tests may build configs without the section). */
export function routingOf(config: { routing?: RoutingConfig }): RoutingConfig {
  return config.routing ?? DEFAULT_ROUTING;
}

/** The limits settings of a config (tests may build configs without the section). */
export function limitsOf(config: { limits?: LimitsConfig }): LimitsConfig {
  return config.limits ?? DEFAULT_LIMITS;
}
