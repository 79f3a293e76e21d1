/**
 * The `metrics` and `tracing` sections of the config file (README "Operating the gateway"): schemas, parsed shapes
 * and defaults, kept apart from file-schema.ts like routing-limits.ts. Tracing is on only when an OTLP endpoint is
 * named here or in the standard OpenTelemetry environment variables; nothing of the tracing SDK loads otherwise.
 */
import { Type, type Static } from "@sinclair/typebox";
import { Defaulted, deepFreeze, resolveDefaults } from "./defaults.ts";

const EnvRef = Type.Object({ env: Type.String({ minLength: 1 }) }, { additionalProperties: false });

/** Config file `metrics`: `GET /metrics` (Prometheus text format). */
export const MetricsFileSchema = Type.Object(
  {
    /** A bearer token scrapers must send; absent: `/metrics` is open (as scrapers on a private network expect). */
    token: Type.Optional(Type.Union([Type.String({ minLength: 1 }), EnvRef])),
    /** `false` records nothing and serves 404 (used by the benchmark to measure what metrics cost). */
    enabled: Defaulted(Type.Boolean(), true),
  },
  { additionalProperties: false },
);

/** Config file `tracing`: OpenTelemetry spans exported over OTLP/HTTP (protobuf). */
export const TracingFileSchema = Type.Object(
  {
    /** The OTLP traces URL, e.g. `http://127.0.0.1:4318/v1/traces` (default: from `OTEL_EXPORTER_OTLP_*`). */
    endpoint: Type.Optional(Type.String({ pattern: "^https?://" })),
    headers: Type.Optional(Type.Record(Type.String(), Type.String())),
    service_name: Type.Optional(Type.String({ minLength: 1 })),
    /** Fraction of requests traced when the client sent no sampling decision (a `traceparent` flag wins). */
    sample_ratio: Defaulted(Type.Number({ minimum: 0, maximum: 1 }), 1),
    /**
     * Spans waiting for export; past it new spans are dropped (and counted), never the request slowed. A bounded
     * queue: 8 batches of 1,024 spans (~3.5 MB). The small batches answered the SDK serialising a batch inside
     * a request's span.end(); here spans are written in place and a batch goes out as it is, so the cost left is per
     * export, on both ends: 256-span batches cost the collector stand-in 4.1 µs of CPU per request, 1,024-span ones
     * 1.6 (bench/observability.ts's setting, in-process A/B).
     */
    queue_size: Defaulted(Type.Integer({ minimum: 1, maximum: 1_000_000 }), 8192),
    batch_size: Defaulted(Type.Integer({ minimum: 1, maximum: 10_000 }), 1024),
    /** How long an idle queue waits before it exports what it has. */
    delay_ms: Defaulted(Type.Integer({ minimum: 10 }), 1000),
  },
  { additionalProperties: false },
);

export interface MetricsConfig {
  enabled: boolean;
  /** The bearer token `/metrics` asks for; undefined: open. */
  token: string | undefined;
}

export interface TracingConfig {
  /** Full OTLP/HTTP traces URL. */
  url: string;
  headers: Record<string, string>;
  serviceName: string;
  sampleRatio: number;
  queueSize: number;
  batchSize: number;
  delayMs: number;
}

type Env = Record<string, string | undefined>;

/** Thrown as the config loader's ConfigError by the caller (this module stays free of load.ts). */
export class ObservabilityConfigError extends Error {}


export function toMetricsConfig(section: Static<typeof MetricsFileSchema> | undefined, env: Env): MetricsConfig {
  const m = resolveDefaults(MetricsFileSchema, section);
  const token = m.token;
  if (token === undefined || typeof token === "string") return { enabled: m.enabled, token };
  const value = env[token.env];
  if (!value) throw new ObservabilityConfigError(`invalid config field "metrics.token": environment variable ${token.env} is not set`);
  return { enabled: m.enabled, token: value };
}

/** What a config without a `metrics` section gets: on, and open. */
export const DEFAULT_METRICS: MetricsConfig = deepFreeze(toMetricsConfig(undefined, {}));

/**
 * Tracing settings, or undefined when no endpoint is named. `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is the full URL;
 * `OTEL_EXPORTER_OTLP_ENDPOINT` is a base the signal path is appended to (the OpenTelemetry specification's rule).
 */
export function toTracingConfig(section: Static<typeof TracingFileSchema> | undefined, env: Env): TracingConfig | undefined {
  const t = resolveDefaults(TracingFileSchema, section);
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  const url = t.endpoint ?? (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || (base ? `${base.replace(/\/+$/, "")}/v1/traces` : undefined));
  if (!url) return undefined;
  if (!/^https?:\/\//.test(url)) throw new ObservabilityConfigError(`OTEL_EXPORTER_OTLP_ENDPOINT: not an http(s) URL: ${url}`);
  return {
    url,
    // Headers and the service name fall back on the OpenTelemetry environment, then on these.
    headers: t.headers ?? parseHeaders(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS ?? env.OTEL_EXPORTER_OTLP_HEADERS),
    serviceName: t.service_name ?? (env.OTEL_SERVICE_NAME?.trim() || "inference-gateway"),
    sampleRatio: t.sample_ratio,
    queueSize: t.queue_size,
    batchSize: t.batch_size,
    delayMs: t.delay_ms,
  };
}

/** `k1=v1,k2=v2` (values URL-encoded), the OTLP exporter environment format. */
function parseHeaders(raw: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of (raw ?? "").split(",")) {
    const at = pair.indexOf("=");
    if (at <= 0) continue;
    headers[pair.slice(0, at).trim()] = decodeURIComponent(pair.slice(at + 1).trim());
  }
  return headers;
}
