/**
 * `auto-beta-router` (spec "auto-beta-router plugin"): `service/auto-beta`, the auto-router's choice with a price
 * trade-off. Without `cost_tier`, candidates are ranked by quality minus `cost_quality_tradeoff` / 20 × their
 * price percentile (0–10, default 9: higher favours cheaper; deprecated); `cost_tier` takes precedence and ranks by
 * quality within its band. Same classifier, candidates, lists and metadata as auto-router (router-kit/auto.ts).
 */
import { Type } from "@sinclair/typebox";
import { definePlugin } from "../../core/sdk/index.ts";
import { autoRoute, COST_TIERS, type CostTier } from "../router-kit/auto.ts";
import { asksFor } from "../router-kit/choose.ts";
import { literals, ModelPatterns, ROUTER_PRIORITY, routerSlugs } from "../router-kit/options.ts";

export const AUTO_BETA_ROUTER_MODEL = "service/auto-beta";
export const DEFAULT_TRADEOFF = 9;
const ID = "auto-beta-router";
const SLUGS = routerSlugs(AUTO_BETA_ROUTER_MODEL);

export default definePlugin({
  id: ID,
  description: "Chooses a model for the prompt's task, trading quality against price (model service/auto-beta).",
  priority: ROUTER_PRIORITY,
  models: SLUGS,
  optionsSchema: Type.Object(
    {
      allowed_models: Type.Optional(ModelPatterns),
      excluded_models: Type.Optional(ModelPatterns),
      cost_tier: Type.Optional(literals(Object.keys(COST_TIERS) as CostTier[])),
      cost_quality_tradeoff: Type.Optional(Type.Integer({ minimum: 0, maximum: 10 })),
    },
    { additionalProperties: false },
  ),
  hooks: {
    async pre(ctx) {
      if (!asksFor(ctx, ID, SLUGS)) return;
      const tradeoff = typeof ctx.options.cost_quality_tradeoff === "number" ? ctx.options.cost_quality_tradeoff : DEFAULT_TRADEOFF;
      await autoRoute(ctx, { pluginId: ID, tradeoff });
    },
  },
});
