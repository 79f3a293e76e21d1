/**
 * Which plugins run for a request, with which options, and the context each hook gets (README "Plugins: selection
 * and defaults"). A plugin runs when the request names it, when the operator's config turns it on for everyone
 * (`plugins.<id>.enabled: true`) or when it is on by default, unless the request says `{id, enabled: false}`. The
 * config's other keys are default options, overridden key by key by the request's entry. `locked: true` makes the
 * operator's setting final: a request entry that would change it is ignored with a warning. An unknown id, or
 * options the plugin's schema refuses, is a 400 naming the field. A workspace's plugin settings sit between the
 * config and the request (README "Workspaces").
 */
import type { TSchema } from "@sinclair/typebox";
import { TypeCompiler, ValueErrorType, type TypeCheck } from "@sinclair/typebox/compiler";
import { errors } from "../../errors.ts";
import type { CanonicalRequest, PluginRequest } from "../../model/request.ts";
import { warn } from "../../model/warnings.ts";
import type { RegisteredPlugin } from "../../registry/define.ts";
import type { PluginContext } from "../../registry/plugin.ts";
import { sharedCatalogView } from "../../routing/catalog-view.ts";
import type { RequestContext } from "../context.ts";
import { decisionOf } from "../turn/decision.ts";
import { routeTurn } from "../turn/route.ts";
import { completeWithin, runToolWithin } from "./nested.ts";
import { workspaceSettingsOf } from "../../workspaces/settings-service.ts";

export interface ActivePlugin {
  readonly plugin: RegisteredPlugin;
  readonly options: Record<string, unknown>;
  /** A fresh hook context for `request` (one per call: turns may run concurrently with different requests). */
  contextFor(request: CanonicalRequest): PluginContext;
}

/** The operator's entry for one plugin, split into its switches and its default options. */
interface OperatorSetting {
  enabled: boolean | undefined;
  locked: boolean;
  defaults: Record<string, unknown>;
}

/** The keys of a config `plugins.<id>` entry that are switches, not options. */
export const PLUGIN_SWITCHES = ["enabled", "locked"] as const;

/** The default options of a config entry (its switches removed), as the plugin's schema sees them. */
export function pluginDefaults(entry: Record<string, unknown> | undefined): Record<string, unknown> {
  if (!entry) return {};
  const { enabled: _enabled, locked: _locked, ...defaults } = entry;
  return defaults;
}

/** The active plugins in run order (priority, then id). */
export function resolvePlugins(ctx: RequestContext): ActivePlugin[] {
  const requested = new Map<string, { entry: PluginRequest; index: number }>();
  ctx.request.plugins.forEach((entry, index) => {
    if (!ctx.deps.registry.plugin(entry.id)) {
      throw errors.invalid(`plugins[${index}].id: plugin "${entry.id}" is not available on this gateway`, { param: `plugins[${index}].id` });
    }
    requested.set(entry.id, { entry, index });
  });
  const active: ActivePlugin[] = [];
  const workspacePlugins = ctx.principal ? workspaceSettingsOf(ctx.deps).peek(ctx.principal.workspaceId)?.settings.plugins : undefined;
  for (const plugin of ctx.deps.registry.orderedPlugins()) {
    const configured = ctx.deps.config.plugins[plugin.id];
    const setting = operatorSetting(workspacePlugins ? withWorkspaceEntry(configured, workspacePlugins.find((e) => e.id === plugin.id)) : configured);
    const named = requested.get(plugin.id);
    // A request whose model is the plugin's own model id (a router's `service/auto`) asks for it as if it named it,
    // unless the catalog has a model of that id (an operator's own `openrouter/auto`, say).
    const model = ctx.request.model;
    const bySlug = model !== undefined && plugin.models?.includes(model) === true && ctx.deps.catalog.get(model) === undefined;
    const byDefault = setting.enabled ?? (plugin.enabledByDefault === true || bySlug);
    let enabled = byDefault;
    let explicit = setting.enabled === true || bySlug;
    let options = setting.defaults;
    if (named && setting.locked) {
      if (overrides(named.entry, byDefault)) {
        const field = `plugins[${named.index}]`;
        warn(ctx.request.warnings, "plugin_locked", field, `The operator locked plugin "${plugin.id}"; this entry was ignored`);
      }
    } else if (named) {
      const { id: _id, enabled: switched, ...own } = named.entry;
      enabled = switched !== false;
      explicit = enabled;
      if (Object.keys(own).length > 0) {
        options = { ...setting.defaults, ...own };
        checkRequestOptions(plugin, options, named.index);
      }
    }
    if (!enabled) continue;
    // On only by default: skipped outright when this request cannot concern it (no PDF, no small window).
    if (!explicit && !named && plugin.appliesTo && !plugin.appliesTo(ctx.request, sharedCatalogView(ctx.deps.catalog, ctx.deps.routing))) continue;
    const state = new Map<string, unknown>();
    active.push({ plugin, options, contextFor: (request) => pluginContext(ctx, plugin, { options, explicit, state }, request) });
  }
  return active;
}

/**
 * The config's entry with the workspace's entry for the same plugin over it (README "Workspaces"): its options
 * override the config's key by key and its switches replace them, unless the config locked the plugin, which no
 * workspace can change; a workspace's `locked` binds its own requests.
 */
function withWorkspaceEntry(configured: Record<string, unknown> | undefined, own: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!own || configured?.locked === true) return configured;
  const { id: _id, ...entry } = own;
  return { ...configured, ...entry };
}

function operatorSetting(entry: Record<string, unknown> | undefined): OperatorSetting {
  if (!entry) return { enabled: undefined, locked: false, defaults: {} };
  const enabled = typeof entry.enabled === "boolean" ? entry.enabled : undefined;
  return { enabled, locked: entry.locked === true, defaults: pluginDefaults(entry) };
}

/** Whether a request entry asks for something other than the locked setting (its mere mention does not). */
function overrides(entry: PluginRequest, lockedOn: boolean): boolean {
  if (entry.enabled !== undefined && entry.enabled !== lockedOn) return true;
  if (entry.enabled === undefined && !lockedOn) return true;
  return Object.keys(entry).some((key) => key !== "id" && key !== "enabled");
}

/** Compiled once per plugin: a request's options are checked on the hot path. */
const checkers = new WeakMap<TSchema, TypeCheck<TSchema>>();

function checkRequestOptions(plugin: RegisteredPlugin, options: Record<string, unknown>, index: number): void {
  const schema = plugin.optionsSchema;
  if (!schema) return;
  let check = checkers.get(schema);
  if (!check) checkers.set(schema, (check = TypeCompiler.Compile(schema)));
  const first = check.Errors(options).First();
  if (!first) return;
  // `/pdf/engine` → `plugins[0].pdf.engine` (an unknown key's path names the key itself).
  const field = `plugins[${index}]${first.path.replaceAll("/", ".")}`;
  const unknown = first.type === ValueErrorType.ObjectAdditionalProperties;
  throw errors.invalid(`${field}: ${unknown ? `unknown option of plugin "${plugin.id}"` : first.message}`, { param: field });
}

interface PluginScope {
  options: Record<string, unknown>;
  explicit: boolean;
  state: Map<string, unknown>;
}

function pluginContext(ctx: RequestContext, plugin: RegisteredPlugin, scope: PluginScope, request: CanonicalRequest): PluginContext {
  return {
    request,
    options: scope.options,
    explicit: scope.explicit,
    state: scope.state,
    workspace: ctx.principal?.workspaceId ?? "",
    helpers: ctx.deps.guardedHelpers,
    fetch: ctx.deps.serverFetch,
    upstreamFetch: ctx.deps.fetch,
    signal: ctx.signal,
    catalog: sharedCatalogView(ctx.deps.catalog, ctx.deps.routing),
    report: (entry) => void ctx.pipeline.push({ ...entry, type: "plugin", name: plugin.id }),
    charge: async (amount, description) => void (await ctx.bill.charge({ plugin: plugin.id }, amount, description)),
    reserveTurn: (turn) => ctx.bill.reserveTurn(turn),
    route: async (routed) => decisionOf(await routeTurn(ctx, routed), ctx.deps.routing),
    complete: (sub, options) => completeWithin(ctx, plugin, sub, options),
    runTool: (type, args, parameters) => runToolWithin(ctx, type, args, parameters),
  };
}
