/**
 * routing: turns the requested model (and fallback `models`) into an ordered list of endpoints.
 * Today: every endpoint of each model in request order, cheapest first within a model. Provider preferences,
 * tiers, sticky sessions and health arrive with the routing issue and plug in here.
 */
import { GatewayError, errors } from "../../errors.ts";
import type { Endpoint } from "../../routing/catalog.ts";
import type { Stage } from "../stage.ts";

export const routingStage: Stage = {
  name: "routing",
  async run(ctx, next) {
    const requested = [ctx.request.model, ...ctx.request.models].filter((m): m is string => typeof m === "string" && m.length > 0);
    if (requested.length === 0) throw errors.invalid("model is required (or a non-empty models list)");
    const unknown: string[] = [];
    const candidates: Endpoint[] = [];
    for (const id of new Set(requested)) {
      const model = ctx.deps.catalog.get(id);
      if (!model) {
        unknown.push(id);
        continue;
      }
      candidates.push(...[...model.endpoints].sort((a, b) => unitPrice(a) - unitPrice(b)));
    }
    if (candidates.length === 0) {
      throw new GatewayError("invalid_request", `Model ${unknown.map((m) => `"${m}"`).join(", ")} is not available on this gateway`, {
        metadata: { availability: { code: "model_not_found", retryable: false, requested_models: requested } },
      });
    }
    if (unknown.length > 0) {
      ctx.request.warnings.push({ code: "unknown_model", field: "models", message: `Skipped unknown models: ${unknown.join(", ")}` });
    }
    ctx.candidates = candidates;
    ctx.log.model = requested[0];
    await next();
  },
};

function unitPrice(endpoint: Endpoint): number {
  return endpoint.model.pricing.prompt + endpoint.model.pricing.completion;
}
