/** The cost/quality frontier of the pareto-router, and its coding tiers. */
import type { Candidate } from "../router-kit/candidates.ts";

export type Tier = "low" | "medium" | "high";

/** ≥ 0.66 high, ≥ 0.33 medium, else low. */
export function tierOf(score: number): Tier {
  return score >= 0.66 ? "high" : score >= 0.33 ? "medium" : "low";
}

/**
 * The models no other model beats on both counts (cheaper or as cheap, and scoring higher or as high, one of them
 * strictly), cheapest first: walking up the price, a model joins when it scores higher than every cheaper one.
 */
export function frontier(models: readonly Candidate[], price: (c: Candidate) => number, score: (c: Candidate) => number): Candidate[] {
  const sorted = [...models].sort((a, b) => price(a) - price(b) || score(b) - score(a) || a.id.localeCompare(b.id));
  const out: Candidate[] = [];
  let best = -Infinity;
  for (const model of sorted) {
    if (score(model) > best) {
      out.push(model);
      best = score(model);
    }
  }
  return out;
}
