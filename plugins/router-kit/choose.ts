/**
 * What every router does once it has ranked its candidates: keep the first one that routing can serve (provider
 * preferences, client tools and the rest, asked of routing itself, so a router never picks a model the request
 * would then be refused on), rewrite the request's `model` (and fallback `models`) to it, and say in
 * `service_metadata` which router chose and why: the entry's `strategy`, `requested` and `summary` become the
 * metadata's own (core/http/service-metadata.ts).
 */
import type { GatewayError, PluginContext } from "../../core/sdk/index.ts";

/** A router's decision, ranked best first. */
export interface RouterChoice {
  /** Model ids, best first; the first one routing accepts is chosen. */
  ranked: readonly string[];
  /** How many models after the chosen one become fallbacks (`models`). */
  fallbacks: number;
  /** `service_metadata.strategy`: `auto`, `pareto`, `jev`, `switchyard`. */
  strategy: string;
  /** Why, in a few words, for `service_metadata.summary` (the chosen model is added). */
  reason: string;
  /** The pipeline entry's `data`. */
  data: Record<string, unknown>;
}

/** The id the request asked for (a router's model id, or the router's plugin id when the request gave no model). */
export function requestedOf(ctx: PluginContext, pluginId: string): string {
  return ctx.request.model ?? pluginId;
}

/**
 * Whether this router should act: the request's model is one of its ids, or it gives no model (nor fallback
 * `models`, unless the router reads them as candidates) and names the router's entry.
 */
export function asksFor(ctx: PluginContext, pluginId: string, slugs: readonly string[], modelsAreCandidates = false): boolean {
  const model = ctx.request.model;
  if (model !== undefined) return slugs.includes(model) && ctx.catalog.model(model) === undefined;
  if (ctx.request.models.length > 0 && !modelsAreCandidates) return false;
  return ctx.request.plugins.some((entry) => entry.id === pluginId && entry.enabled !== false);
}

/** Routes the ranked models in order, rewrites the request to the first that routes, reports; the chosen id. */
export async function applyChoice(ctx: PluginContext, pluginId: string, choice: RouterChoice): Promise<string> {
  const requested = requestedOf(ctx, pluginId);
  let firstError: GatewayError | undefined;
  for (let index = 0; index < choice.ranked.length; index++) {
    const model = choice.ranked[index]!;
    const fallbacks = choice.ranked.slice(index + 1, index + 1 + choice.fallbacks);
    const request = { ...ctx.request, model, models: fallbacks };
    try {
      await ctx.route({ ...request, models: [] });
    } catch (error) {
      firstError ??= error as GatewayError;
      continue;
    }
    ctx.request = request;
    const skipped = index > 0 ? ` (${index} better-ranked model(s) could not serve this request)` : "";
    ctx.report({
      strategy: choice.strategy,
      requested,
      summary: `${pluginId} chose ${model}: ${choice.reason}${skipped}`,
      data: { ...choice.data, resolved_to: model, fallback_models: fallbacks, resolved_models: [model, ...fallbacks] },
    });
    return model;
  }
  throw firstError ?? noModels(ctx, pluginId);
}

/** The 404 when the lists or the tier leave no model (reference: "No models match…"). */
export function noModels(ctx: PluginContext, pluginId: string, detail = "the request's model lists and cost settings"): GatewayError {
  return ctx.helpers.error("not_found", `No models match ${detail} (${pluginId})`, {
    metadata: { availability: { code: "constraint_filtered", retryable: false, excluded_by: pluginId } },
  });
}

/** `plugins[i].<key>` for the router's entry in the request (or `plugins.<id>.<key>` for a config default). */
export function optionField(ctx: PluginContext, pluginId: string, key: string): string {
  const index = ctx.request.plugins.findIndex((entry) => entry.id === pluginId);
  return index === -1 ? `plugins.${pluginId}.${key}` : `plugins[${index}].${key}`;
}
