/**
 * What routing needs to know about an endpoint and a model that never changes after start-up: computed once per
 * endpoint (memoised on the object), so no request re-derives prices, capability sets or kv key names.
 */
import type { Endpoint } from "./catalog.ts";

/** Static, routing-relevant facts about one endpoint. */
export interface EndpointProfile {
  /** Stable across processes: the kv keys of health, stats and stickiness use it. */
  key: string;
  /** USD per token, prompt + completion: the `price` sort key. */
  unitPrice: number;
  /** Default load-balancing weight: ∝ 1/price², so a provider at half the price gets four times the traffic. */
  weight: number;
  /** Declared tiers; an endpoint that declares none serves `default` only. */
  tiers: ReadonlySet<string>;
  /** Declared `supported_parameters`, or undefined when the config says nothing (then nothing is assumed missing). */
  parameters: ReadonlySet<string> | undefined;
  /** Worst-case USD per prompt token (a cache write may cost more than a plain prompt token). */
  maxPromptPrice: number;
  /** Worst-case USD per output token (reasoning may be priced above completion). */
  maxCompletionPrice: number;
  requestPrice: number;
  /** USD per generated image (0 when the model has no image price). */
  imagePrice: number;
}

const profiles = new WeakMap<Endpoint, EndpointProfile>();

/** A price floor for the weight, so free endpoints get a large but finite weight. */
const PRICE_FLOOR = 1e-9;

/** The endpoint's profile, computed on first use and then reused. */
export function profileOf(endpoint: Endpoint): EndpointProfile {
  let profile = profiles.get(endpoint);
  if (!profile) {
    profile = computeProfile(endpoint);
    profiles.set(endpoint, profile);
  }
  return profile;
}

function computeProfile(endpoint: Endpoint): EndpointProfile {
  const { model, provider } = endpoint;
  const pricing = model.pricing;
  const unitPrice = pricing.prompt + pricing.completion;
  const priced = Math.max(unitPrice, PRICE_FLOOR);
  return Object.freeze({
    key: `${provider.id}|${model.id}`,
    unitPrice,
    weight: 1 / (priced * priced),
    tiers: new Set(model.tiers && model.tiers.length > 0 ? model.tiers : ["default"]),
    parameters: model.supportedParameters ? new Set(model.supportedParameters) : undefined,
    maxPromptPrice: Math.max(pricing.prompt, pricing.cacheWrite ?? 0, pricing.cacheRead ?? 0),
    maxCompletionPrice: Math.max(pricing.completion, pricing.reasoning ?? 0),
    requestPrice: pricing.request ?? 0,
    imagePrice: pricing.image ?? 0,
  });
}

/** The most a request to any endpoint of some models can cost per token, for credit reservations. */
export interface PriceCeiling {
  promptPrice: number;
  completionPrice: number;
  requestPrice: number;
  /** USD per generated image (held for one image when a request asks for image output). */
  imagePrice?: number;
  /** The largest declared `max_output_tokens`, or undefined when an endpoint declares none. */
  maxOutputTokens: number | undefined;
}

const ceilings = new WeakMap<readonly Endpoint[], PriceCeiling>();

/** The price ceiling over a model's endpoints, memoised per endpoint list (the catalog's lists never change). */
export function ceilingOf(endpoints: readonly Endpoint[]): PriceCeiling {
  let ceiling = ceilings.get(endpoints);
  if (!ceiling) {
    ceiling = mergeCeilings(endpoints.map(single));
    ceilings.set(endpoints, ceiling);
  }
  return ceiling;
}

function single(endpoint: Endpoint): PriceCeiling {
  const p = profileOf(endpoint);
  const ceiling: PriceCeiling = { promptPrice: p.maxPromptPrice, completionPrice: p.maxCompletionPrice, requestPrice: p.requestPrice, maxOutputTokens: endpoint.model.maxOutputTokens };
  if (p.imagePrice > 0) ceiling.imagePrice = p.imagePrice;
  return ceiling;
}

/** The element-wise maximum; an unbounded output anywhere makes the merged output unbounded. */
export function mergeCeilings(list: readonly PriceCeiling[]): PriceCeiling {
  let out: PriceCeiling = { promptPrice: 0, completionPrice: 0, requestPrice: 0, maxOutputTokens: 0 };
  for (const c of list) {
    const imagePrice = Math.max(out.imagePrice ?? 0, c.imagePrice ?? 0);
    out = {
      promptPrice: Math.max(out.promptPrice, c.promptPrice),
      completionPrice: Math.max(out.completionPrice, c.completionPrice),
      requestPrice: Math.max(out.requestPrice, c.requestPrice),
      ...(imagePrice > 0 ? { imagePrice } : {}),
      maxOutputTokens: out.maxOutputTokens === undefined || c.maxOutputTokens === undefined ? undefined : Math.max(out.maxOutputTokens, c.maxOutputTokens),
    };
  }
  return out;
}
