/**
 * routing (the first step of a model turn): turns the requested model and fallback models into ordered candidates (model × endpoint), applying the
 * provider preferences, the service tier, endpoint health and the sticky session (core/routing/plan.ts). Reads only
 * in-process state, except one kv read for a session pin when the request has a session and a choice to make.
 */
import { GatewayError, errors } from "../../errors.ts";
import type { CanonicalRequest } from "../../model/request.ts";
import type { CatalogModel, Endpoint } from "../../routing/catalog.ts";
import { planRoute } from "../../routing/plan.ts";
import { checkModelTasks } from "../../retrieval/model-task.ts";
import { preferencesOf } from "../../routing/preferences.ts";
import { pinnedProvider, stickyKey } from "../../routing/sticky.ts";
import type { RequestContext, RouteState } from "../context.ts";

/** A turn's routing decision: the ordered candidates to try and how they were chosen. */
export interface TurnRoute {
  readonly candidates: Endpoint[];
  readonly state: RouteState;
}

/** Routes one turn's request, then lets the active router plugins narrow or reorder the candidates. */
export async function routeTurn(ctx: RequestContext, request: CanonicalRequest): Promise<TurnRoute> {
  const requested = requestedModels(request);
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
    request.warnings.push({ code: "unknown_model", field: "models", message: `Skipped unknown models: ${unknown.join(", ")}` });
  }
  checkModelTasks(request, models);
  const preferences = preferencesOf(request);
  // Not even an await without a session: this runs on every turn.
  const sticky = request.sessionId === undefined ? undefined : await stickyOf(ctx, request, models[0]!);
  const { health, stats, random } = ctx.deps.routing;
  const plan = planRoute({
    request,
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
  const state: RouteState = { ...plan, sticky };
  const candidates = ctx.plugins.length === 0 ? plan.candidates : await routePlugins(ctx, request, plan.candidates);
  ctx.candidates = candidates;
  ctx.route = state;
  ctx.log.model = requested[0];
  return { candidates, state };
}

/** Router plugins narrow or reorder the candidates, in plugin order; one that leaves none is a 400. */
async function routePlugins(ctx: RequestContext, request: CanonicalRequest, planned: Endpoint[]): Promise<Endpoint[]> {
  let candidates = planned;
  for (const active of ctx.plugins) {
    const route = active.plugin.hooks.route;
    if (!route) continue;
    const chosen = await route(
      active.contextFor(request),
      candidates.map((c) => ({ model: c.model.id, providerId: c.provider.id })),
    );
    const offered = candidates;
    candidates = chosen.flatMap((pick) => offered.filter((c) => c.model.id === pick.model && c.provider.id === pick.providerId));
    if (candidates.length === 0) throw errors.invalid(`plugin "${active.plugin.id}" left no endpoint to serve this request`);
  }
  return candidates;
}

/** The models a request names, primary first; a 400 when it names none (also checked when a batch is submitted). */
export function requestedModels(request: CanonicalRequest): string[] {
  const requested = [request.model, ...request.models].filter((m): m is string => typeof m === "string" && m.length > 0);
  if (requested.length === 0) throw errors.invalid("model is required (or a non-empty models list)");
  return requested;
}

/** The session pin of the primary model, looked up only when there is a session and more than one endpoint. */
async function stickyOf(ctx: RequestContext, request: CanonicalRequest, model: CatalogModel): Promise<RouteState["sticky"]> {
  const session = request.sessionId;
  if (session === undefined || !ctx.principal || model.endpoints.length < 2) return undefined;
  const key = stickyKey(ctx.principal.keyHash, model.id, session);
  return { key, model: model.id, pinned: await pinnedProvider(ctx.deps.kv, key) };
}
