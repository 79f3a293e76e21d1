/**
 * `pareto-router`: `service/pareto-code` picks from the cost/quality frontier for coding: the models
 * no other model beats on both price and coding score (config `quality.coding`, else the default). Models fall in
 * tiers by coding score (≥ 0.66 high, ≥ 0.33 medium, else low); `min_coding_score` (0–1, default 0.66) names the
 * tier, and its cheapest frontier model answers, with up to two more of the same tier as fallbacks (the next tier
 * up when that tier has none on the frontier, else the best below). `max_price` (USD per million tokens of
 * `price_source`: `prompt`, the default, or `weighted_avg`, 3 input : 1 output) bypasses the tiers: the best frontier
 * model at or under it. `service/pareto-code:nitro` prefers the fastest measured model of the tier instead. A
 * session stays on the model chosen for it for 5 minutes when it can (sticky.ts).
 */
import { Type } from "@sinclair/typebox";
import { definePlugin } from "../../core/sdk/index.ts";
import { catalogModels, pricePercentiles, qualityOf, type Candidate } from "../router-kit/candidates.ts";
import { applyChoice, asksFor, noModels } from "../router-kit/choose.ts";
import { literals, ROUTER_PRIORITY, routerSlugs } from "../router-kit/options.ts";
import { frontier, tierOf, type Tier } from "./frontier.ts";
import { keepSticky, sessionKey, stickyModel, STICKY_TTL_MS } from "./sticky.ts";

export const PARETO_ROUTER_MODEL = "service/pareto-code";
const NITRO = `${PARETO_ROUTER_MODEL}:nitro`;
const SLUGS = routerSlugs(PARETO_ROUTER_MODEL, NITRO);
const ID = "pareto-router";
export const DEFAULT_MIN_CODING_SCORE = 0.66;
const TIER_ORDER: readonly Tier[] = ["low", "medium", "high"];

export default definePlugin({
  id: ID,
  description: "Chooses from the price/coding-quality frontier (model service/pareto-code).",
  priority: ROUTER_PRIORITY,
  models: SLUGS,
  optionsSchema: Type.Object(
    {
      min_coding_score: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
      max_price: Type.Optional(Type.Number({ minimum: 0 })),
      price_source: Type.Optional(literals(["prompt", "weighted_avg"])),
    },
    { additionalProperties: false },
  ),
  hooks: {
    async pre(ctx) {
      if (!asksFor(ctx, ID, SLUGS)) return;
      const nitro = ctx.request.model?.endsWith(":nitro") === true;
      const source = ctx.options.price_source === "weighted_avg" ? "weighted_avg" : "prompt";
      const priceOf = (c: Candidate) => (source === "prompt" ? c.promptPrice : c.price);
      const catalog = catalogModels(ctx);
      const ranks = pricePercentiles(catalog);
      const score = (c: Candidate) => qualityOf(c, "coding", ranks);
      const front = frontier(catalog, priceOf, score);
      if (front.length === 0) throw noModels(ctx, ID, "a coding request");
      const maxPrice = typeof ctx.options.max_price === "number" ? ctx.options.max_price : undefined;
      const minScore = typeof ctx.options.min_coding_score === "number" ? ctx.options.min_coding_score : DEFAULT_MIN_CODING_SCORE;
      const data: Record<string, unknown> = {
        price_source: source,
        frontier: front.map((c) => ({ model: c.id, coding_score: score(c), price_per_million: round(priceOf(c) * 1e6) })),
      };
      let ranked: Candidate[];
      let reason: string;
      if (maxPrice !== undefined) {
        ranked = front.filter((c) => priceOf(c) * 1e6 <= maxPrice).sort((a, b) => score(b) - score(a));
        if (ranked.length === 0) throw noModels(ctx, ID, `max_price ${maxPrice} USD per million tokens`);
        data.max_price = maxPrice;
        reason = `best coding score on the frontier at or under ${maxPrice} USD/M`;
      } else {
        const wanted = tierOf(minScore);
        const tier = nearestTier(front, score, wanted);
        const inTier = front.filter((c) => tierOf(score(c)) === tier);
        ranked = nitro ? inTier.sort((a, b) => (b.throughput ?? -1) - (a.throughput ?? -1) || priceOf(a) - priceOf(b)) : inTier.sort((a, b) => priceOf(a) - priceOf(b));
        Object.assign(data, { min_coding_score: minScore, tier, ...(tier !== wanted ? { tier_fallback: wanted } : {}) });
        reason = `${nitro ? "fastest" : "cheapest"} ${tier}-tier coding model on the frontier`;
      }
      const session = sessionKey(ctx);
      const kept = session === undefined ? undefined : await stickyModel(ctx, session);
      if (kept !== undefined && ranked.some((c) => c.id === kept)) {
        // The session's model first, the ranking after it (its fallbacks, and the choice when it cannot serve now).
        ranked = [...ranked.filter((c) => c.id === kept), ...ranked.filter((c) => c.id !== kept)];
        data.sticky = { model: kept, ttl_ms: STICKY_TTL_MS };
        reason = `the session's model (chosen within the last ${STICKY_TTL_MS / 60_000} minutes) while it can serve; else the ${reason}`;
      }
      const chosen = await applyChoice(ctx, ID, { ranked: ranked.map((c) => c.id), fallbacks: 2, strategy: "pareto", reason, data });
      if (session !== undefined) await keepSticky(ctx, session, chosen);
    },
  },
});

/** The wanted tier when the frontier has a model in it; else the next tier up, else the best tier below. */
function nearestTier(front: readonly Candidate[], score: (c: Candidate) => number, wanted: Tier): Tier {
  const present = new Set(front.map((c) => tierOf(score(c))));
  const at = TIER_ORDER.indexOf(wanted);
  for (let i = at; i < TIER_ORDER.length; i++) if (present.has(TIER_ORDER[i]!)) return TIER_ORDER[i]!;
  for (let i = at - 1; i >= 0; i--) if (present.has(TIER_ORDER[i]!)) return TIER_ORDER[i]!;
  return wanted;
}

function round(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}
