/**
 * Which plugins run for a request, and the context each hook gets. A plugin runs when it is enabled by default or
 * named in the request's `plugins`, unless `{id, enabled: false}`; an id the gateway does not have is a 400.
 */
import { errors } from "../../errors.ts";
import type { CanonicalRequest } from "../../model/request.ts";
import type { RegisteredPlugin } from "../../registry/define.ts";
import type { PluginContext } from "../../registry/plugin.ts";
import { sharedCatalogView } from "../../routing/catalog-view.ts";
import { chargeRequest } from "../turn/charge.ts";
import type { RequestContext } from "../context.ts";
import { decisionOf } from "../turn/decision.ts";
import { routeTurn } from "../turn/route.ts";

export interface ActivePlugin {
  readonly plugin: RegisteredPlugin;
  readonly options: Record<string, unknown>;
  /** A fresh hook context for `request` (one per call: turns may run concurrently with different requests). */
  contextFor(request: CanonicalRequest): PluginContext;
}

/** The active plugins in run order (priority, then id). */
export function resolvePlugins(ctx: RequestContext): ActivePlugin[] {
  const requested = new Map(ctx.request.plugins.map((p) => [p.id, p]));
  for (const id of requested.keys()) {
    if (!ctx.deps.registry.plugin(id)) throw errors.invalid(`plugins: plugin "${id}" is not available on this gateway`);
  }
  const active: ActivePlugin[] = [];
  for (const plugin of ctx.deps.registry.orderedPlugins()) {
    const entry = requested.get(plugin.id);
    const enabled = entry ? entry.enabled !== false : plugin.enabledByDefault === true;
    if (!enabled) continue;
    const { id: _id, enabled: _enabled, ...requestOptions } = entry ?? { id: plugin.id };
    const options = { ...ctx.deps.config.plugins[plugin.id], ...requestOptions };
    active.push({ plugin, options, contextFor: (request) => pluginContext(ctx, plugin, options, request) });
  }
  return active;
}

function pluginContext(ctx: RequestContext, plugin: RegisteredPlugin, options: Record<string, unknown>, request: CanonicalRequest): PluginContext {
  return {
    request,
    options,
    helpers: ctx.deps.helpers,
    signal: ctx.signal,
    catalog: sharedCatalogView(ctx.deps.catalog, ctx.deps.routing),
    report: (entry) => void ctx.pipeline.push({ ...entry, type: "plugin", name: plugin.id }),
    charge: (amount, description) => chargeRequest(ctx, { plugin: plugin.id }, amount, description),
    route: async (routed) => decisionOf(await routeTurn(ctx, routed), ctx.deps.routing),
  };
}


