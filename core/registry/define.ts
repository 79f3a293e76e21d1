/**
 * Self-describing modules. Each plugin, server tool and provider adapter is a frozen value
 * branded with a global `Symbol.for` tag and an API version, so a module built outside the binary (with its own copy
 * of this file) is still recognised by the loader.
 */
import type { TSchema } from "@sinclair/typebox";
import type { ProviderAdapter } from "./provider.ts";
import type { PluginModule } from "./plugin.ts";
import type { ToolModule } from "./tool.ts";

export const MODULE_BRAND = Symbol.for("inference-gateway.module");
/** Bumped when a module contract changes incompatibly; the loader refuses other versions. */
export const MODULE_API_VERSION = 1;

export type ModuleKind = "plugin" | "tool" | "provider";

export interface Brand<K extends ModuleKind> {
  readonly [MODULE_BRAND]: { readonly kind: K; readonly apiVersion: number };
}

export interface ModuleBase {
  /** Unique within its kind: plugin id, tool type (`service:datetime`) or adapter name (`openai`). */
  readonly id: string;
  readonly description: string;
  /** Options the config may give the module; validated at start-up (bad options stop the process). */
  readonly optionsSchema?: TSchema;
  /**
   * The other modules this one needs registered: those whose tool it offers or runs, whose code it imports. Checked
   * once every module is registered (built-ins and extensions, in any order); a missing one stops start-up, named.
   */
  readonly requires?: ModuleRequirements;
}

/** Module ids by kind: plugin ids, tool ids (`service:web_fetch`), adapter names. */
export interface ModuleRequirements {
  readonly plugins?: readonly string[];
  readonly tools?: readonly string[];
  readonly providers?: readonly string[];
}

function brand<K extends ModuleKind, M extends ModuleBase>(kind: K, module: M): M & Brand<K> {
  return Object.freeze({ ...module, [MODULE_BRAND]: Object.freeze({ kind, apiVersion: MODULE_API_VERSION }) });
}

export const definePlugin = <M extends PluginModule>(module: M) => brand("plugin", module);
export const defineTool = <M extends ToolModule>(module: M) => brand("tool", module);
export const defineProvider = <M extends ProviderAdapter>(module: M) => brand("provider", module);

export type RegisteredPlugin = PluginModule & Brand<"plugin">;
export type RegisteredTool = ToolModule & Brand<"tool">;
export type RegisteredProvider = ProviderAdapter & Brand<"provider">;
export type RegisteredModule = RegisteredPlugin | RegisteredTool | RegisteredProvider;

/** Reads the brand of an unknown value; undefined when it is not a module of ours. */
export function moduleBrand(value: unknown): { kind: string; apiVersion: number } | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const tag = (value as Record<symbol, unknown>)[MODULE_BRAND];
  if (typeof tag !== "object" || tag === null) return undefined;
  const { kind, apiVersion } = tag as { kind?: unknown; apiVersion?: unknown };
  return typeof kind === "string" && typeof apiVersion === "number" ? { kind, apiVersion } : undefined;
}
