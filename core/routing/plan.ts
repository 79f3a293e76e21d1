/**
 * The route plan: requested model then each fallback model (`models`, Messages `fallbacks`), each model's endpoints
 * filtered by the hard constraints and ordered by preferences, tier, stickiness and price. Pure: health, statistics,
 * the sticky pin and randomness come in as values, so the planner is tested without a kv.
 */
import type { CanonicalRequest } from "../model/request.ts";
import { noEndpointError } from "./availability.ts";
import type { CatalogModel, Endpoint } from "./catalog.ts";
import { filterEndpoints, type Eligible, type Exclusion, type FilterInput } from "./filter.ts";
import type { BreakerState } from "./health.ts";
import { orderEndpoints, type StatsView } from "./endpoint-order.ts";
import { profileOf } from "./profile.ts";
import { sentParameters, usesTools } from "./parameters.ts";
import type { RoutingPreferences } from "./preferences.ts";
import { tierChain } from "./tiers.ts";

export interface PlanInput {
  request: CanonicalRequest;
  preferences: RoutingPreferences;
  /** Known models in request order (unknown ones were already dropped with a warning). */
  models: readonly CatalogModel[];
  /** Every model id asked for, for error metadata. */
  requested: readonly string[];
  breaker: (key: string) => BreakerState;
  cooldownUntil: (key: string) => number;
  stats: StatsView;
  random: () => number;
  pinned: string | undefined;
  now: number;
}

/** Ordered candidates, the tier each would serve at, what was left out and why, and the last-resort endpoints. */
export interface RoutePlan {
  candidates: Endpoint[];
  tiers: Map<Endpoint, string>;
  excluded: Exclusion[];
  /** Candidates whose breaker is open: placed last, tried only when every healthy endpoint failed. */
  cooling: ReadonlySet<Endpoint>;
}

/** Builds the plan; throws a 404 naming the constraints when no endpoint is left. */
export function planRoute(input: PlanInput): RoutePlan {
  const { preferences } = input;
  const excluded: Exclusion[] = [];
  const filter: FilterInput = {
    preferences,
    parameters: preferences.requireParameters ? sentParameters(input.request) : [],
    usesTools: usesTools(input.request),
    wantsImages: input.request.modalities?.includes("image") === true,
    tierChain: tierChain(input.request.serviceTier),
    breaker: input.breaker,
  };
  const order = { preferences, stats: input.stats, random: input.random, pinned: input.pinned };
  const coolingAll: Eligible[] = [];
  const perModel = input.models.map((model) => filterEndpoints(model.endpoints, filter, excluded, coolingAll));
  let ordered: Eligible[];
  if (preferences.partition === "none" && preferences.sortBy !== undefined) {
    ordered = orderEndpoints(perModel.flat(), order);
  } else {
    ordered = perModel.flatMap((list, i) => orderEndpoints(list, i === 0 ? order : { ...order, pinned: undefined }));
  }
  const lastResort = coolingAll.length === 0 ? [] : lastResortOf(coolingAll, input, ordered.length > 0);
  if (ordered.length === 0 && lastResort.length === 0) throw noEndpointError(input.requested, excluded);
  const tiers = new Map<Endpoint, string>();
  for (const e of ordered) tiers.set(e.endpoint, e.tier);
  for (const e of lastResort) tiers.set(e.endpoint, e.tier);
  return { candidates: [...ordered, ...lastResort].map((e) => e.endpoint), tiers, excluded, cooling: new Set(lastResort.map((e) => e.endpoint)) };
}

/**
 * Cooling endpoints, soonest back first, still honouring `order` and `allow_fallbacks: false` (which allows only
 * the first endpoint: then a cooling one is tried only when no healthy one was eligible).
 */
function lastResortOf(cooling: readonly Eligible[], input: PlanInput, haveHealthy: boolean): Eligible[] {
  const { order, allowFallbacks } = input.preferences;
  const until = (e: Eligible) => input.cooldownUntil(profileOf(e.endpoint).key);
  let out = [...cooling].sort((a, b) => until(a) - until(b));
  if (order) {
    const listed = new Set(order);
    if (!allowFallbacks) out = out.filter((e) => listed.has(e.endpoint.provider.id));
    const rank = (e: Eligible) => (listed.has(e.endpoint.provider.id) ? order.indexOf(e.endpoint.provider.id) : order.length);
    out.sort((a, b) => rank(a) - rank(b));
    return out;
  }
  if (!allowFallbacks) return haveHealthy ? [] : out.slice(0, 1);
  return out;
}
