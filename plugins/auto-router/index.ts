/**
 * `auto-router` (spec "Plugins"): a request for `service/auto` gets the best model for its task. The
 * prompt is classified locally (router-kit/classify.ts) and the candidates ranked by their quality for that task
 * (config `quality` on the model entries, else defaults), within the `cost_tier` band when one is given; cheaper
 * first on equal quality. `pin_model: true` keeps the model that wrote the conversation's last assistant turn when
 * it is still a candidate. The reply's `model` is the chosen one; `service_metadata` says why (`strategy: "auto"`).
 */
import { Type } from "@sinclair/typebox";
import { definePlugin } from "../../core/sdk/index.ts";
import { autoRoute, COST_TIERS, type CostTier } from "../router-kit/auto.ts";
import { asksFor } from "../router-kit/choose.ts";
import { literals, ModelPatterns, ROUTER_PRIORITY, routerSlugs } from "../router-kit/options.ts";
import { pinnedModel, rememberingStream, rememberPin } from "../router-kit/pin.ts";

export const AUTO_ROUTER_MODEL = "service/auto";
const ID = "auto-router";
const SLUGS = routerSlugs(AUTO_ROUTER_MODEL);

export default definePlugin({
  id: ID,
  description: "Chooses the best model for the prompt's task (model service/auto).",
  priority: ROUTER_PRIORITY,
  models: SLUGS,
  optionsSchema: Type.Object(
    {
      allowed_models: Type.Optional(ModelPatterns),
      excluded_models: Type.Optional(ModelPatterns),
      cost_tier: Type.Optional(literals(Object.keys(COST_TIERS) as CostTier[])),
      pin_model: Type.Optional(Type.Boolean()),
    },
    { additionalProperties: false },
  ),
  hooks: {
    async pre(ctx) {
      if (!asksFor(ctx, ID, SLUGS)) return;
      const pinned = ctx.options.pin_model === true ? await pinnedModel(ctx) : undefined;
      ctx.state.set("chosen", await autoRoute(ctx, { pluginId: ID, tradeoff: undefined, pinned }));
    },
    // The reply's text is remembered with its model, for a later `pin_model` request of the same conversation.
    post(ctx, response) {
      if (ctx.state.has("chosen")) rememberPin(ctx, response.parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join(""), response.model);
      return response;
    },
    stream(ctx, events) {
      const chosen = ctx.state.get("chosen");
      return typeof chosen === "string" ? rememberingStream(ctx, events, chosen) : events;
    },
  },
});
