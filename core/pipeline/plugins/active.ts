/**
 * Which plugins run for a request, and the context each hook gets. A plugin runs when it is enabled by default or
 * named in the request's `plugins`, unless `{id, enabled: false}`; an id the gateway does not have is a 400.
 */
import { roundUsd } from "../../accounting/money.ts";
import { GatewayError, errors } from "../../errors.ts";
import type { CanonicalRequest } from "../../model/request.ts";
import type { RegisteredPlugin } from "../../registry/define.ts";
import type { PluginContext } from "../../registry/plugin.ts";
import { createCatalogView, type CatalogView } from "../../routing/catalog-view.ts";
import type { Deps } from "../../deps.ts";
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
    catalog: catalogViewOf(ctx.deps),
    report: (entry) => void ctx.pipeline.push({ ...entry, type: "plugin", name: plugin.id }),
    charge: (amount, description) => charge(ctx, plugin.id, amount, description),
    route: async (routed) => decisionOf(await routeTurn(ctx, routed), ctx.deps.routing),
  };
}

async function charge(ctx: RequestContext, pluginId: string, amount: number, description: string): Promise<void> {
  if (!Number.isFinite(amount) || amount < 0) throw new TypeError(`plugin "${pluginId}": charge(${amount}) must be a finite, non-negative USD amount`);
  const usd = roundUsd(amount);
  if (usd > 0 && ctx.credit && !(await ctx.credit.extend(usd))) {
    throw new GatewayError("payment_required", `Insufficient credits for the priced work of plugin "${pluginId}" (${description})`, {
      metadata: { plugin: pluginId, amount: usd },
    });
  }
  ctx.spend.charges.push({ amount: usd, description, plugin: pluginId });
}

const views = new WeakMap<Deps, CatalogView>();

/** One view per process (its methods read the live routing state). */
function catalogViewOf(deps: Deps): CatalogView {
  let view = views.get(deps);
  if (!view) views.set(deps, (view = createCatalogView(deps.catalog, deps.routing)));
  return view;
}
