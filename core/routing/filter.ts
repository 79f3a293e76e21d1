/**
 * Hard routing constraints: which endpoints may serve this request at all, and why each excluded
 * one was excluded (for the `availability` metadata of a 404, and for `service_metadata`). Soft preferences
 * (preferred latency/throughput) never exclude; they are ordering, see order.ts.
 */
import type { Endpoint } from "./catalog.ts";
import type { RoutingPreferences } from "./preferences.ts";
import type { BreakerState } from "./health.ts";
import { profileOf } from "./profile.ts";
import { tierFor } from "./tiers.ts";

/** Why an endpoint was left out: the request field that excluded it. */
export type ExclusionReason =
  | "provider.only"
  | "provider.ignore"
  | "provider.data_collection"
  | "provider.zdr"
  | "provider.quantizations"
  | "provider.require_parameters"
  | "provider.max_price"
  | "tools"
  | "modalities"
  | "service_tier";

export interface Exclusion {
  endpoint: Endpoint;
  reason: ExclusionReason;
  /** Human detail, e.g. the parameters the endpoint lacks. */
  detail: string;
}

/** What the filter needs besides the preferences. */
export interface FilterInput {
  preferences: RoutingPreferences;
  /** Sent parameter names (only consulted when some endpoint declares its parameters). */
  parameters: readonly string[];
  usesTools: boolean;
  /** The request asks for image output (`modalities` has `image`). */
  wantsImages?: boolean;
  tierChain: readonly string[];
  breaker: (key: string) => BreakerState;
}

/** An endpoint that may serve, with the tier it would serve at and that tier's rank (0 = most preferred). */
export interface Eligible {
  endpoint: Endpoint;
  tier: string;
  tierRank: number;
}

/**
 * Splits endpoints into eligible ones (in the given order), exclusions, and endpoints that would be eligible but
 * are cooling down after failures: those are kept aside as a last resort rather than excluded, so a breaker moves
 * traffic to healthy endpoints but never leaves a request with nothing to try.
 */
export function filterEndpoints(endpoints: readonly Endpoint[], input: FilterInput, excluded: Exclusion[], cooling: Eligible[]): Eligible[] {
  const out: Eligible[] = [];
  for (const endpoint of endpoints) {
    const reason = exclusionOf(endpoint, input);
    if (reason) {
      excluded.push({ endpoint, ...reason });
      continue;
    }
    const tier = tierFor(input.tierChain, profileOf(endpoint).tiers)!;
    const eligible = { endpoint, tier: tier.tier, tierRank: tier.rank };
    if (input.breaker(profileOf(endpoint).key) === "open") cooling.push(eligible);
    else out.push(eligible);
  }
  return out;
}

function exclusionOf(endpoint: Endpoint, input: FilterInput): { reason: ExclusionReason; detail: string } | undefined {
  const p = input.preferences;
  const provider = endpoint.provider.id;
  const model = endpoint.model;
  const profile = profileOf(endpoint);
  if (p.only && !p.only.has(provider)) return { reason: "provider.only", detail: `${provider} is not in provider.only` };
  if (p.ignore?.has(provider)) return { reason: "provider.ignore", detail: `${provider} is in provider.ignore` };
  if (p.denyDataCollection && model.dataCollection === "allow") return { reason: "provider.data_collection", detail: `${provider} may collect data` };
  if (p.zdr && model.zdr !== true) return { reason: "provider.zdr", detail: `${provider} does not declare zero data retention` };
  if (p.quantizations && !p.quantizations.has(model.quantization ?? "unknown")) {
    return { reason: "provider.quantizations", detail: `${provider} serves ${model.quantization ?? "unknown"} quantization` };
  }
  const declared = profile.parameters;
  if (declared && input.usesTools && !declared.has("tools")) return { reason: "tools", detail: `${provider} does not support tool use` };
  // Like tools: only a model whose config says what it outputs is held to it; an undeclared one is the upstream's call.
  const outputs = model.outputModalities;
  if (input.wantsImages && outputs && !outputs.includes("image")) {
    return { reason: "modalities", detail: `${model.id} at ${provider} does not output images (output_modalities: ${outputs.join(", ")})` };
  }
  if (declared && p.requireParameters) {
    const missing = input.parameters.filter((name) => !declared.has(name));
    if (missing.length > 0) return { reason: "provider.require_parameters", detail: `${provider} does not support ${missing.join(", ")}` };
  }
  const max = p.maxPrice;
  if (max) {
    const pricing = model.pricing;
    if ((max.prompt !== undefined && pricing.prompt > max.prompt) || (max.completion !== undefined && pricing.completion > max.completion) || (max.request !== undefined && (pricing.request ?? 0) > max.request)) {
      return { reason: "provider.max_price", detail: `${provider} costs more than provider.max_price` };
    }
  }
  if (!tierFor(input.tierChain, profile.tiers)) return { reason: "service_tier", detail: `${provider} offers none of the tiers ${input.tierChain.join(", ")}` };
  return undefined;
}
