/**
 * Provider routing preferences (spec `provider`): validated against a closed schema (unknown or
 * mistyped fields are a 400 naming the field) and normalised into the one shape the planner reads. Every decoder has
 * already folded the deprecated `route` into `sort.partition` (core/formats/shared/route.ts).
 */
import { Type, type Static } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { errors } from "../errors.ts";
import type { CanonicalRequest } from "../model/request.ts";

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()]));
const Slugs = Type.Array(Type.String({ minLength: 1 }));
const Price = Type.Union([Type.Number({ minimum: 0 }), Type.String({ pattern: "^\\s*[0-9]*\\.?[0-9]+([eE][-+]?[0-9]+)?\\s*$" })]);
const Percentiles = Type.Union([
  Type.Number({ minimum: 0 }),
  Type.Object(
    { p50: Type.Optional(Type.Number({ minimum: 0 })), p75: Type.Optional(Type.Number({ minimum: 0 })), p90: Type.Optional(Type.Number({ minimum: 0 })), p99: Type.Optional(Type.Number({ minimum: 0 })) },
    { additionalProperties: false },
  ),
]);
/** Reference b2 `quantizations`; an endpoint that declares none counts as `unknown`. */
export const QUANTIZATIONS = ["int4", "int8", "fp4", "mxfp4", "nvfp4", "fp6", "fp8", "mxfp8", "fp16", "bf16", "fp32", "unknown"] as const;
const SortBy = Type.Union([Type.Literal("price"), Type.Literal("throughput"), Type.Literal("latency"), Type.Literal("exacto")]);
const Partition = Type.Union([Type.Literal("model"), Type.Literal("none")]);

/** Reference b2 `ProviderPreferences` (additionalProperties false, every field nullable). */
export const ProviderPreferencesSchema = Type.Object(
  {
    order: Nullable(Slugs),
    only: Nullable(Slugs),
    ignore: Nullable(Slugs),
    allow_fallbacks: Nullable(Type.Boolean()),
    require_parameters: Nullable(Type.Boolean()),
    data_collection: Nullable(Type.Union([Type.Literal("allow"), Type.Literal("deny")])),
    zdr: Nullable(Type.Boolean()),
    enforce_distillable_text: Nullable(Type.Boolean()),
    quantizations: Nullable(Type.Array(Type.Union(QUANTIZATIONS.map((q) => Type.Literal(q))))),
    sort: Nullable(Type.Union([SortBy, Type.Object({ by: Type.Optional(Type.Union([SortBy, Type.Null()])), partition: Type.Optional(Type.Union([Partition, Type.Null()])) }, { additionalProperties: false })])),
    max_price: Nullable(
      Type.Object(
        { prompt: Type.Optional(Price), completion: Type.Optional(Price), image: Type.Optional(Price), audio: Type.Optional(Price), request: Type.Optional(Price) },
        { additionalProperties: false },
      ),
    ),
    preferred_max_latency: Nullable(Percentiles),
    preferred_min_throughput: Nullable(Percentiles),
  },
  { additionalProperties: false },
);

const validator = TypeCompiler.Compile(ProviderPreferencesSchema);
type Raw = Static<typeof ProviderPreferencesSchema>;

/** Thresholds per percentile; a bare number in the request means p50. */
export type PercentileThresholds = Partial<Record<"p50" | "p75" | "p90" | "p99", number>>;

export type SortBy = "price" | "throughput" | "latency";

/** The normalised preferences the route planner reads. */
export interface RoutingPreferences {
  order: readonly string[] | undefined;
  only: ReadonlySet<string> | undefined;
  ignore: ReadonlySet<string> | undefined;
  allowFallbacks: boolean;
  requireParameters: boolean;
  denyDataCollection: boolean;
  zdr: boolean;
  quantizations: ReadonlySet<string> | undefined;
  /** Undefined: default load balancing (unless `order` is given). */
  sortBy: SortBy | undefined;
  /** `model`: sort inside each fallback model; `none`: sort every endpoint together. */
  partition: "model" | "none";
  /** USD per token (the request says USD per million tokens) and per request. */
  maxPrice: { prompt?: number; completion?: number; request?: number } | undefined;
  /** Seconds to first byte. */
  preferredMaxLatency: PercentileThresholds | undefined;
  /** Output tokens per second. */
  preferredMinThroughput: PercentileThresholds | undefined;
}

/** No preferences at all: the common case, shared rather than rebuilt per request. */
export const NO_PREFERENCES: RoutingPreferences = Object.freeze({
  order: undefined,
  only: undefined,
  ignore: undefined,
  allowFallbacks: true,
  requireParameters: false,
  denyDataCollection: false,
  zdr: false,
  quantizations: undefined,
  sortBy: undefined,
  partition: "model",
  maxPrice: undefined,
  preferredMaxLatency: undefined,
  preferredMinThroughput: undefined,
});

/** Validates and normalises `provider` (decoders fold the deprecated `route` into it); a 400 names the first bad field. */
export function preferencesOf(request: CanonicalRequest): RoutingPreferences {
  const raw = request.provider;
  if (raw === undefined || raw === null) return NO_PREFERENCES;
  const candidate: unknown = raw ?? {};
  const first = validator.Errors(candidate).First();
  if (first) {
    const field = first.path === "" ? "provider" : `provider.${first.path.slice(1).replaceAll("/", ".")}`;
    throw errors.invalid(`Invalid provider preferences: ${field}: ${first.message}`, { param: field });
  }
  return normalise(candidate as Raw, request);
}

function normalise(raw: Raw, request: CanonicalRequest): RoutingPreferences {
  const sort = raw.sort;
  const by = typeof sort === "string" ? sort : (sort?.by ?? undefined);
  const partition = (typeof sort === "object" && sort !== null ? sort.partition : undefined) ?? "model";
  if (by === "exacto") {
    request.warnings.push({ code: "unsupported_field", field: "provider.sort", message: "Sorting by tool-calling quality (exacto) is not available; default balancing was used" });
  }
  if (raw.enforce_distillable_text === true) {
    request.warnings.push({ code: "unsupported_field", field: "provider.enforce_distillable_text", message: "Endpoints declare no distillation policy; the preference was not applied" });
  }
  return {
    order: raw.order ?? undefined,
    only: raw.only ? new Set(raw.only) : undefined,
    ignore: raw.ignore ? new Set(raw.ignore) : undefined,
    allowFallbacks: raw.allow_fallbacks ?? true,
    requireParameters: raw.require_parameters ?? false,
    denyDataCollection: raw.data_collection === "deny",
    zdr: raw.zdr === true,
    quantizations: raw.quantizations ? new Set(raw.quantizations) : undefined,
    sortBy: by === "exacto" || by === undefined ? undefined : by,
    partition,
    maxPrice: maxPriceOf(raw.max_price ?? undefined),
    preferredMaxLatency: percentiles(raw.preferred_max_latency ?? undefined),
    preferredMinThroughput: percentiles(raw.preferred_min_throughput ?? undefined),
  };
}

const PER_MILLION = 1e-6;

function maxPriceOf(raw: Raw["max_price"]): RoutingPreferences["maxPrice"] {
  if (!raw) return undefined;
  const num = (v: number | string | undefined) => (v === undefined ? undefined : Number(v));
  const out: NonNullable<RoutingPreferences["maxPrice"]> = {};
  const prompt = num(raw.prompt);
  const completion = num(raw.completion);
  const request = num(raw.request);
  if (prompt !== undefined) out.prompt = prompt * PER_MILLION;
  if (completion !== undefined) out.completion = completion * PER_MILLION;
  if (request !== undefined) out.request = request;
  return Object.keys(out).length > 0 ? out : undefined;
}

function percentiles(raw: number | PercentileThresholds | undefined): PercentileThresholds | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw === "number") return { p50: raw };
  return Object.keys(raw).length > 0 ? raw : undefined;
}
