/**
 * routing: turns the requested model and fallback models into ordered candidates (model × endpoint), applying the
 * provider preferences, the service tier, endpoint health and the sticky session (core/routing/plan.ts). Reads only
 * in-process state, except one kv read for a session pin when the request has a session and a choice to make.
 */
import { GatewayError, errors } from "../../errors.ts";
import type { CanonicalRequest } from "../../model/request.ts";
import type { CatalogModel } from "../../routing/catalog.ts";
import { planRoute } from "../../routing/plan.ts";
import { preferencesOf } from "../../routing/preferences.ts";
import { pinnedProvider, stickyKey } from "../../routing/sticky.ts";
import type { RequestContext, RouteState } from "../context.ts";
import type { Stage } from "../stage.ts";

export const routingStage: Stage = {
  name: "routing",
  async run(ctx, next) {
    const requested = requestedModels(ctx.request);
    const unknown: string[] = [];
    const models: CatalogModel[] = [];
    for (const id of new Set(requested)) {
      const model = ctx.deps.catalog.get(id);
      if (model) models.push(model);
      else unknown.push(id);
    }
    if (models.length === 0) {
      throw new GatewayError("invalid_request", `Model ${unknown.map((m) => `"${m}"`).join(", ")} is not available on this gateway`, {
        metadata: { availability: { code: "model_not_found", retryable: false, requested_models: requested } },
      });
    }
    if (unknown.length > 0) {
      ctx.request.warnings.push({ code: "unknown_model", field: "models", message: `Skipped unknown models: ${unknown.join(", ")}` });
    }
    const preferences = preferencesOf(ctx.request);
    // Not even an await without a session: this stage runs on every request.
    const sticky = ctx.request.sessionId === undefined ? undefined : await stickyOf(ctx, models[0]!);
    const { health, stats, random } = ctx.deps.routing;
    const plan = planRoute({
      request: ctx.request,
      preferences,
      models,
      requested,
      breaker: (key) => health.stateOf(key),
      cooldownUntil: (key) => health.cooldownUntil(key),
      stats,
      random,
      pinned: sticky?.pinned,
      now: ctx.deps.clock.now(),
    });
    ctx.candidates = plan.candidates;
    ctx.route = { ...plan, sticky };
    ctx.log.model = requested[0];
    return next();
  },
};

/** The models a request names, primary first; a 400 when it names none (also checked when a batch is submitted). */
export function requestedModels(request: CanonicalRequest): string[] {
  const requested = [request.model, ...request.models].filter((m): m is string => typeof m === "string" && m.length > 0);
  if (requested.length === 0) throw errors.invalid("model is required (or a non-empty models list)");
  return requested;
}

/** The session pin of the primary model, looked up only when there is a session and more than one endpoint. */
async function stickyOf(ctx: RequestContext, model: CatalogModel): Promise<RouteState["sticky"]> {
  const session = ctx.request.sessionId;
  if (session === undefined || !ctx.principal || model.endpoints.length < 2) return undefined;
  const key = stickyKey(ctx.principal.keyHash, model.id, session);
  return { key, model: model.id, pinned: await pinnedProvider(ctx.deps.kv, key) };
}
