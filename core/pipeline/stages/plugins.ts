/**
 * pre-plugins / post-plugins: run the registered plugins' hooks in their fixed order (priority, then id).
 * A plugin runs when it is enabled by default or named in the request's `plugins`, unless `{id, enabled: false}`.
 */
import { errors } from "../../errors.ts";
import type { RegisteredPlugin } from "../../registry/define.ts";
import type { PluginContext } from "../../registry/plugin.ts";
import type { RequestContext } from "../context.ts";
import type { Stage } from "../stage.ts";

interface ActivePlugin {
  plugin: RegisteredPlugin;
  context: PluginContext;
}

const ACTIVE = Symbol("active-plugins");
type WithPlugins = RequestContext & { [ACTIVE]?: ActivePlugin[] };

/** Resolves which plugins run for this request; a plugin id the gateway does not have is a 400, not a silent no-op. */
function activePlugins(ctx: WithPlugins): ActivePlugin[] {
  const cached = ctx[ACTIVE];
  if (cached) return cached;
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
    active.push({
      plugin,
      context: {
        request: ctx.request,
        options: { ...ctx.deps.config.plugins[plugin.id], ...requestOptions },
        helpers: ctx.deps.helpers,
        report: (entry) => void (ctx.log.pipeline = [...((ctx.log.pipeline as unknown[]) ?? []), { type: "plugin", name: plugin.id, ...entry }]),
      },
    });
  }
  ctx[ACTIVE] = active;
  return active;
}

export const prePluginsStage: Stage = {
  name: "pre-plugins",
  async run(ctx, next) {
    for (const { plugin, context } of activePlugins(ctx)) {
      if (plugin.hooks.pre) {
        context.request = ctx.request;
        await plugin.hooks.pre(context);
        ctx.request = context.request; // a hook may assign a new request object rather than mutate it
      }
    }
    return next();
  },
};

export const postPluginsStage: Stage = {
  name: "post-plugins",
  async run(ctx, next) {
    await next();
    const outcome = ctx.outcome;
    if (!outcome) return;
    for (const { plugin, context } of activePlugins(ctx)) {
      context.request = ctx.request;
      if (outcome.kind === "response" && plugin.hooks.post) outcome.response = await plugin.hooks.post(context, outcome.response);
      if (outcome.kind === "stream" && plugin.hooks.stream) outcome.events = plugin.hooks.stream(context, outcome.events);
    }
  },
};

/** Router plugins narrow or reorder the routing candidates (after routing built them). */
export const routePluginsStage: Stage = {
  name: "route-plugins",
  async run(ctx, next) {
    for (const { plugin, context } of activePlugins(ctx)) {
      if (!plugin.hooks.route) continue;
      context.request = ctx.request;
      const chosen = await plugin.hooks.route(
        context,
        ctx.candidates.map((c) => ({ model: c.model.id, providerId: c.provider.id })),
      );
      ctx.candidates = chosen.flatMap((pick) =>
        ctx.candidates.filter((c) => c.model.id === pick.model && c.provider.id === pick.providerId),
      );
      if (ctx.candidates.length === 0) throw errors.invalid(`plugin "${plugin.id}" left no endpoint to serve this request`);
    }
    return next();
  },
};
