/**
 * The auto routers' choice (auto-router and auto-beta-router): classify the prompt, take the candidates (the
 * request's fallback `models` when given, else every text model of the catalog), apply `allowed_models` then
 * `excluded_models`, drop models whose context cannot hold the prompt, then rank:
 * - with `cost_tier`: only the models whose price percentile falls in the band (the nearest ones when none does),
 *   best quality for the task first;
 * - otherwise auto-router ranks by quality (cheaper first on a tie) and auto-beta-router by quality minus a cost
 *   penalty of `cost_quality_tradeoff` / 20 × the price percentile (default 9: up to 0.45 off for the dearest).
 */
import type { PluginContext } from "../../core/sdk/index.ts";
import { catalogModels, fitting, namedModels, pricePercentiles, qualityOf, type Candidate } from "./candidates.ts";
import { applyChoice, noModels, optionField } from "./choose.ts";
import { classify, type Classification } from "./classify.ts";
import { compilePatterns, filterByPatterns } from "./patterns.ts";

export const COST_TIERS = { low: [0, 20], medium: [20, 40], high: [40, 60], xhigh: [60, 80], max: [80, 100] } as const;
export type CostTier = keyof typeof COST_TIERS;

export interface AutoSettings {
  pluginId: string;
  /** auto-beta-router: the deprecated trade-off (0–10, default 9); undefined ranks by quality alone. */
  tradeoff: number | undefined;
  /** A model to put first when it is a candidate (pin_model). */
  pinned?: string | undefined;
}

/** Chooses and applies the model; resolves with the chosen id. */
export async function autoRoute(ctx: PluginContext, settings: AutoSettings): Promise<string> {
  const started = performance.now();
  const { pluginId } = settings;
  const options = ctx.options;
  const allowed = compilePatterns(options.allowed_models, optionField(ctx, pluginId, "allowed_models"), ctx.helpers);
  const excluded = compilePatterns(options.excluded_models, optionField(ctx, pluginId, "excluded_models"), ctx.helpers);
  const catalog = catalogModels(ctx);
  const pool = ctx.request.models.length > 0 ? namedModels(ctx, ctx.request.models) : catalog;
  const listed = filterByPatterns(pool, allowed, excluded);
  if (listed.length === 0) throw noModels(ctx, pluginId);
  const candidates = fitting(listed, ctx.request);
  const classification = classify(ctx.request);
  const catalogRanks = pricePercentiles(catalog);
  const ranks = pricePercentiles(candidates);
  const tier = options.cost_tier as CostTier | undefined;
  const quality = (c: Candidate) => qualityOf(c, classification.task, catalogRanks);
  let ranked: Candidate[];
  let tierFallback = false;
  if (tier !== undefined) {
    const band = inBand(candidates, ranks, COST_TIERS[tier]);
    tierFallback = band.nearest;
    ranked = band.models.sort((a, b) => quality(b) - quality(a) || a.price - b.price || a.id.localeCompare(b.id));
  } else if (settings.tradeoff !== undefined) {
    const weight = settings.tradeoff / 20;
    const utility = (c: Candidate) => quality(c) - (weight * (ranks.get(c.id) ?? 0)) / 100;
    ranked = [...candidates].sort((a, b) => utility(b) - utility(a) || a.price - b.price || a.id.localeCompare(b.id));
  } else {
    ranked = [...candidates].sort((a, b) => quality(b) - quality(a) || a.price - b.price || a.id.localeCompare(b.id));
  }
  const pinned = settings.pinned !== undefined && candidates.some((c) => c.id === settings.pinned) ? settings.pinned : undefined;
  const order = pinned ? [pinned, ...ranked.map((c) => c.id).filter((id) => id !== pinned)] : ranked.map((c) => c.id);
  const data: Record<string, unknown> = {
    ...(classification.task ? { task_type: classification.task } : {}),
    complexity: classification.complexity,
    ...(tier ? { cost_tier: tier, ...(tierFallback ? { tier_fallback: "nearest" } : {}) } : {}),
    ...(tier === undefined && settings.tradeoff !== undefined ? { cost_quality_tradeoff: settings.tradeoff } : {}),
    ...(pinned ? { pinned: true } : {}),
    candidates: candidates.length,
    considered: ranked.slice(0, 5).map((c) => ({ model: c.id, quality: quality(c), price_percentile: ranks.get(c.id) })),
    decision_ms: Math.round((performance.now() - started) * 1000) / 1000,
  };
  return applyChoice(ctx, pluginId, { ranked: order, fallbacks: 2, strategy: "auto", reason: reasonOf(classification, tier, candidates.length, catalog.length, pinned), data });
}

/** The candidates whose percentile is in [lo, hi) (the top band includes 100), else the ones nearest to the band. */
function inBand(candidates: readonly Candidate[], ranks: ReadonlyMap<string, number>, [lo, hi]: readonly [number, number]): { models: Candidate[]; nearest: boolean } {
  const rank = (c: Candidate) => ranks.get(c.id) ?? 0;
  const inside = candidates.filter((c) => rank(c) >= lo && (rank(c) < hi || (hi === 100 && rank(c) <= 100)));
  if (inside.length > 0) return { models: inside, nearest: false };
  const distance = (c: Candidate) => (rank(c) < lo ? lo - rank(c) : rank(c) - hi);
  const best = Math.min(...candidates.map(distance));
  return { models: candidates.filter((c) => distance(c) === best), nearest: true };
}

function reasonOf(classification: Classification, tier: string | undefined, candidates: number, catalog: number, pinned: string | undefined): string {
  const parts = [classification.task ? `task ${classification.task}` : "task unclassified"];
  if (tier) parts.push(`cost tier ${tier}`);
  parts.push(`${candidates} of ${catalog} models considered`);
  if (pinned) parts.push("pinned to the previous turn's model");
  return parts.join(", ");
}
