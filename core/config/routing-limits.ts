/**
 * The `routing` and `limits` sections of the config file (README "Routing and limits"): their TypeBox schemas with
 * their defaults, and their parsed shapes. Kept apart from file-schema.ts so each section reads as one unit.
 */
import { Type, type Static } from "@sinclair/typebox";
import { Defaulted, deepFreeze, resolveDefaults } from "./defaults.ts";

/** Milliseconds (or another whole count) with its default. */
const Ms = (value: number, minimum = 1) => Defaulted(Type.Integer({ minimum }), value);

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
    first_byte_timeout_ms: Ms(60_000),
    request_timeout_ms: Ms(60_000),
    request_timeout_margin: Defaulted(Type.Number({ minimum: 1 }), 2),
    assumed_output_tokens_per_second: Defaulted(Type.Number({ exclusiveMinimum: 0 }), 20),
    idle_timeout_ms: Ms(120_000),
    retry_deadline_ms: Ms(30_000, 0),
    max_retries: Defaulted(Type.Integer({ minimum: 0, maximum: 10 }), 1),
    backoff_base_ms: Ms(100, 0),
    backoff_max_ms: Ms(2_000, 0),
    breaker: Defaulted(
      Type.Object(
        { failure_threshold: Ms(3), failure_window_ms: Ms(60_000), cooldown_ms: Ms(30_000) },
        { additionalProperties: false },
      ),
      {},
    ),
    sticky_ttl_ms: Ms(3_600_000),
    stats: Defaulted(Type.Object({ samples: Ms(100), sync_interval_ms: Ms(5_000) }, { additionalProperties: false }), {}),
  },
  { additionalProperties: false },
);

/** Config file `limits`: default per-key rate limits and credit reservation sizing. */
export const LimitsFileSchema = Type.Object(
  {
    /** Absent: no default limit. */
    rate_limit: Type.Optional(RateLimitSchema),
    default_max_output_tokens: Ms(4_096),
    reservation_ttl_ms: Ms(900_000),
    /** A fee on each request a workspace's own provider key paid (README "Bring your own keys"), percent of its cost. */
    byok_fee_percent: Type.Optional(Type.Number({ minimum: 0, maximum: 100 })),
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
  /** Percent of a BYOK-paid turn's cost billed as a charge (0: none). */
  byokFeePercent: number;
}

/** The `routing` section with defaults filled in. */
export function toRoutingConfig(section: Static<typeof RoutingFileSchema> | undefined): RoutingConfig {
  const r = resolveDefaults(RoutingFileSchema, section);
  return {
    firstByteTimeoutMs: r.first_byte_timeout_ms,
    requestTimeoutMs: r.request_timeout_ms,
    requestTimeoutMargin: r.request_timeout_margin,
    assumedOutputTokensPerSecond: r.assumed_output_tokens_per_second,
    idleTimeoutMs: r.idle_timeout_ms,
    retryDeadlineMs: r.retry_deadline_ms,
    maxRetries: r.max_retries,
    backoffBaseMs: r.backoff_base_ms,
    backoffMaxMs: r.backoff_max_ms,
    breaker: { failureThreshold: r.breaker.failure_threshold, failureWindowMs: r.breaker.failure_window_ms, cooldownMs: r.breaker.cooldown_ms },
    stickyTtlMs: r.sticky_ttl_ms,
    stats: { samples: r.stats.samples, syncIntervalMs: r.stats.sync_interval_ms },
  };
}

/** The `limits` section with defaults filled in. */
export function toLimitsConfig(section: Static<typeof LimitsFileSchema> | undefined): LimitsConfig {
  const l = resolveDefaults(LimitsFileSchema, section);
  return {
    rateLimit: l.rate_limit ? toRateLimitSetting(l.rate_limit) : null,
    defaultMaxOutputTokens: l.default_max_output_tokens,
    reservationTtlMs: l.reservation_ttl_ms,
    byokFeePercent: l.byok_fee_percent ?? 0,
  };
}

/** What a config without a `routing` or `limits` section gets (tests build such configs by hand). */
export const DEFAULT_ROUTING: RoutingConfig = deepFreeze(toRoutingConfig(undefined));
export const DEFAULT_LIMITS: LimitsConfig = deepFreeze(toLimitsConfig(undefined));

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
