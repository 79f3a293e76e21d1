/**
 * `jev-router`: `typesafe/jev-router` picks a model and a reasoning effort. Where the reference asks a
 * hosted decision model, ours is the local classifier (`advisor_model: "local-classifier"`): the task ranks the
 * candidates by quality, the prompt's complexity picks the cost tier (unless `cost_tier` says) and the effort
 * (unless the request's `reasoning.effort` says). Candidates: every text model, or those matching `models` (with
 * `allowed_models`, an alias, merged) when any does (a list matching nothing is ignored: `list_fallback`), less
 * `excluded_models` (404 when they leave none). 400s: `reasoning.max_tokens`, `reasoning.mode: "pro"`, another
 * router's model among the candidates.
 */
import { Type } from "@sinclair/typebox";
import { definePlugin, lastUserText, type PluginContext } from "../../core/sdk/index.ts";
import { catalogModels, fitting, pricePercentiles, qualityOf, type Candidate } from "../router-kit/candidates.ts";
import { applyChoice, asksFor, noModels, optionField } from "../router-kit/choose.ts";
import { classify } from "../router-kit/classify.ts";
import { literals, ModelPatterns, ROUTER_MODELS, ROUTER_PRIORITY } from "../router-kit/options.ts";
import { compilePatterns, filterByPatterns, type ModelPattern } from "../router-kit/patterns.ts";
import { effortFor, estimatedCost, JEV_TIERS, tierForComplexity, type Effort, type JevTier } from "./effort.ts";

export const JEV_ROUTER_MODEL = "typesafe/jev-router";
const ID = "jev-router";

export default definePlugin({
  id: ID,
  description: "Chooses a model and a reasoning effort for the prompt (model typesafe/jev-router).",
  priority: ROUTER_PRIORITY,
  models: [JEV_ROUTER_MODEL],
  optionsSchema: Type.Object(
    {
      cost_tier: Type.Optional(literals(["low", "medium", "high"])),
      models: Type.Optional(ModelPatterns),
      allowed_models: Type.Optional(ModelPatterns),
      excluded_models: Type.Optional(ModelPatterns),
    },
    { additionalProperties: false },
  ),
  hooks: {
    async pre(ctx) {
      if (!asksFor(ctx, ID, [JEV_ROUTER_MODEL])) return;
      checkRequest(ctx);
      const listed = [...(listOf(ctx, "models") ?? []), ...(listOf(ctx, "allowed_models") ?? [])];
      const excluded = listOf(ctx, "excluded_models");
      const catalog = catalogModels(ctx);
      let pool = listed.length > 0 ? filterByPatterns(catalog, listed, undefined) : catalog;
      const listIgnored = listed.length > 0 && pool.length === 0;
      if (listIgnored) pool = catalog;
      pool = filterByPatterns(pool, undefined, excluded);
      if (pool.length === 0) throw noModels(ctx, ID, "excluded_models");
      const candidates = fitting(pool, ctx.request);
      const classification = classify(ctx.request);
      const agentic = ctx.request.tools.length > 0;
      const asked = ctx.options.cost_tier as JevTier | undefined;
      const tier = asked ?? tierForComplexity(classification.complexity);
      const requestEffort = ctx.request.reasoning?.effort;
      const effort: Effort = requestEffort === "low" || requestEffort === "medium" || requestEffort === "high" ? requestEffort : effortFor(classification.complexity, agentic);
      const ranks = pricePercentiles(candidates);
      const catalogRanks = pricePercentiles(catalog);
      const quality = (c: Candidate) => qualityOf(c, classification.task, catalogRanks);
      const { models: inTier, capped } = band(candidates, ranks, JEV_TIERS[tier]);
      const ranked = inTier.sort((a, b) => quality(b) - quality(a) || a.price - b.price || a.id.localeCompare(b.id));
      const chars = lastUserText(ctx.request.messages).length;
      const data: Record<string, unknown> = {
        ...(classification.task ? { task_type: classification.task } : {}),
        candidates: ranked.slice(0, 5).map((c) => ({ model: c.id, effort, tier, estimated_cost: estimatedCost(c, ctx.request, chars, effort) })),
        reason: `${classification.task ?? "unclassified"} prompt, complexity ${classification.complexity}: ${tier} tier, ${effort} effort`,
        pipeline: agentic ? "agentic" : "default",
        advisor_model: "local-classifier",
        ...(listed.length > 0 ? { models: listed.map((p) => p.source) } : {}),
        ...(excluded ? { excluded_models: excluded.map((p) => p.source) } : {}),
        ...(listIgnored ? { list_fallback: "models_ignored" } : {}),
        ...(capped ? { list_tier_cap: capped } : {}),
      };
      const chosen = await applyChoice(ctx, ID, { ranked: ranked.map((c) => c.id), fallbacks: 2, strategy: "jev", reason: `${tier} tier, ${effort} reasoning effort`, data });
      if (requestEffort === undefined) ctx.request = { ...ctx.request, reasoning: { ...ctx.request.reasoning, effort } };
      ctx.state.set("chosen", chosen);
    },
  },
});

/** The reference's 400s: the router owns the reasoning budget, and routers do not nest. */
function checkRequest(ctx: PluginContext): void {
  const reasoning = ctx.request.reasoning;
  const fail = (param: string, message: string) => ctx.helpers.error("invalid_request", message, { metadata: { param } });
  if (reasoning?.maxTokens !== undefined) throw fail("reasoning.max_tokens", "jev-router chooses the reasoning effort: reasoning.max_tokens cannot be combined with it");
  if (reasoning?.extra?.mode === "pro") throw fail("reasoning.mode", 'jev-router does not support reasoning.mode "pro"');
  const nested = ctx.request.models.find((m) => (ROUTER_MODELS as readonly string[]).includes(m));
  if (nested) throw fail("models", `jev-router cannot be combined with another router model (${nested})`);
  for (const key of ["models", "allowed_models"]) {
    const list = ctx.options[key];
    const found = Array.isArray(list) ? list.find((m) => (ROUTER_MODELS as readonly string[]).includes(String(m))) : undefined;
    if (found) throw fail(optionField(ctx, ID, key), `jev-router cannot be combined with another router model (${String(found)})`);
  }
}

function listOf(ctx: PluginContext, key: string): ModelPattern[] | undefined {
  return compilePatterns(ctx.options[key], optionField(ctx, ID, key), ctx.helpers);
}

/** The candidates in the tier's percentile band; when the list leaves the band empty, the nearest (`list_tier_cap`). */
function band(candidates: readonly Candidate[], ranks: ReadonlyMap<string, number>, [lo, hi]: readonly [number, number]): { models: Candidate[]; capped: string | undefined } {
  const rank = (c: Candidate) => ranks.get(c.id) ?? 0;
  const inside = candidates.filter((c) => rank(c) >= lo && (rank(c) < hi || hi === 100));
  if (inside.length > 0) return { models: inside, capped: undefined };
  const distance = (c: Candidate) => (rank(c) < lo ? lo - rank(c) : rank(c) - hi);
  const best = Math.min(...candidates.map(distance));
  const models = candidates.filter((c) => distance(c) === best);
  return { models, capped: rank(models[0]!) < lo ? "below" : "above" };
}
