/**
 * Ordering of eligible endpoints. From least to most significant:
 *   1. the base order: `sort` (price / throughput / latency), else price when `order` is given, else default load
 *      balancing — a weighted random permutation with weight ∝ 1/price² (cheaper endpoints get most traffic, the
 *      others still get some, so their health and statistics stay known);
 *   2. soft preferences: endpoints that miss `preferred_max_latency` / `preferred_min_throughput` move back;
 *   3. the service tier: endpoints serving a better tier of the requested chain come first;
 *   4. a sticky session's provider moves to the front (default balancing only: explicit sorts win);
 *   5. `order`: the listed providers first, in that order; with `allow_fallbacks: false` only they (or, without
 *      `order`, only the first endpoint) remain.
 */
import type { Eligible } from "./filter.ts";
import type { PercentileThresholds, RoutingPreferences } from "./preferences.ts";
import { profileOf } from "./profile.ts";
import type { Percentiles } from "./stats.ts";

/** Measured statistics, by endpoint key. */
export interface StatsView {
  latency(key: string): Percentiles | undefined;
  throughput(key: string): Percentiles | undefined;
}

export interface OrderInput {
  preferences: RoutingPreferences;
  stats: StatsView;
  random: () => number;
  /** The provider a sticky session is pinned to. */
  pinned: string | undefined;
}

/** Orders one partition (one model's endpoints, or all of them with `partition: none`). */
export function orderEndpoints(list: Eligible[], input: OrderInput): Eligible[] {
  const p = input.preferences;
  let out = baseOrder(list, input);
  if (p.preferredMaxLatency || p.preferredMinThroughput) {
    const misses = new Map(out.map((e) => [e, missesPreferred(e, input)]));
    out.sort((a, b) => Number(misses.get(a)) - Number(misses.get(b)));
  }
  out.sort((a, b) => a.tierRank - b.tierRank);
  if (input.pinned !== undefined && p.order === undefined && p.sortBy === undefined) out = pinFirst(out, input.pinned);
  if (p.order) out = applyOrder(out, p.order);
  if (!p.allowFallbacks) {
    if (p.order) {
      const listed = new Set(p.order);
      out = out.filter((e) => listed.has(e.endpoint.provider.id));
    } else out = out.slice(0, 1);
  }
  return out;
}

function baseOrder(list: Eligible[], input: OrderInput): Eligible[] {
  const by = input.preferences.sortBy;
  const price = (e: Eligible) => profileOf(e.endpoint).unitPrice;
  if (by === "throughput") return sortByMeasure(list, (e) => input.stats.throughput(profileOf(e.endpoint).key)?.p50, "desc", price);
  if (by === "latency") return sortByMeasure(list, (e) => input.stats.latency(profileOf(e.endpoint).key)?.p50, "asc", price);
  if (by === "price" || input.preferences.order !== undefined) return [...list].sort((a, b) => price(a) - price(b));
  return list.length > 1 ? weightedShuffle(list, input.random) : [...list];
}

/** Sorts by a measured value; unmeasured endpoints go last (cheapest first among them). */
function sortByMeasure(list: Eligible[], measure: (e: Eligible) => number | undefined, direction: "asc" | "desc", price: (e: Eligible) => number): Eligible[] {
  const keyed = list.map((e) => ({ e, m: measure(e) }));
  keyed.sort((a, b) => {
    if (a.m === undefined || b.m === undefined) return a.m === b.m ? price(a.e) - price(b.e) : a.m === undefined ? 1 : -1;
    const diff = direction === "asc" ? a.m - b.m : b.m - a.m;
    return diff !== 0 ? diff : price(a.e) - price(b.e);
  });
  return keyed.map((k) => k.e);
}

/**
 * A random permutation where each endpoint comes first with probability weight/Σweights (Efraimidis–Spirakis),
 * in log form (ln(u)/w) because 1/price² weights are far too large for u^(1/w) to stay distinguishable.
 */
export function weightedShuffle(list: readonly Eligible[], random: () => number): Eligible[] {
  const keyed = list.map((e) => ({ e, key: Math.log(Math.max(random(), Number.MIN_VALUE)) / profileOf(e.endpoint).weight }));
  keyed.sort((a, b) => b.key - a.key);
  return keyed.map((k) => k.e);
}

function missesPreferred(e: Eligible, input: OrderInput): boolean {
  const key = profileOf(e.endpoint).key;
  const p = input.preferences;
  const above = (measured: Percentiles | undefined, max: PercentileThresholds | undefined) =>
    !!max && !!measured && (Object.keys(max) as Array<keyof PercentileThresholds>).some((q) => measured[q] > max[q]!);
  const below = (measured: Percentiles | undefined, min: PercentileThresholds | undefined) =>
    !!min && !!measured && (Object.keys(min) as Array<keyof PercentileThresholds>).some((q) => measured[q] < min[q]!);
  return above(input.stats.latency(key), p.preferredMaxLatency) || below(input.stats.throughput(key), p.preferredMinThroughput);
}

function pinFirst(list: Eligible[], provider: string): Eligible[] {
  const index = list.findIndex((e) => e.endpoint.provider.id === provider);
  if (index <= 0 || list[index]!.tierRank !== list[0]!.tierRank) return list;
  return [list[index]!, ...list.slice(0, index), ...list.slice(index + 1)];
}

function applyOrder(list: Eligible[], order: readonly string[]): Eligible[] {
  const rank = new Map<string, number>();
  order.forEach((provider, i) => {
    if (!rank.has(provider)) rank.set(provider, i);
  });
  const at = (e: Eligible) => rank.get(e.endpoint.provider.id) ?? order.length;
  return [...list].sort((a, b) => at(a) - at(b));
}
