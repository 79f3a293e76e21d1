/** The typed registry: built-ins from static barrels plus extensions, checked at registration. */
import {
  MODULE_API_VERSION,
  moduleBrand,
  type ModuleRequirements,
  type RegisteredModule,
  type RegisteredPlugin,
  type RegisteredProvider,
  type RegisteredTool,
} from "./define.ts";
import { PLUGIN_HOOKS } from "./plugin.ts";

/** Thrown when a module is not acceptable; start-up stops with this message. */
export class ModuleError extends Error {
  override readonly name = "ModuleError";
}

export class Registry {
  private readonly providers = new Map<string, RegisteredProvider>();
  private readonly plugins = new Map<string, RegisteredPlugin>();
  private readonly tools = new Map<string, RegisteredTool>();
  private pluginOrder: RegisteredPlugin[] = [];
  /** Every registered module with the source that named it, for checkRequirements' messages. */
  private readonly sources = new Map<RegisteredModule, string>();

  /** Registers one module after checking its brand, kind, API version and shape. `source` names it in errors. */
  register(value: unknown, source: string): RegisteredModule {
    const brand = moduleBrand(value);
    if (!brand) throw new ModuleError(`${source}: not a gateway module (use definePlugin / defineTool / defineProvider)`);
    if (brand.apiVersion !== MODULE_API_VERSION) {
      throw new ModuleError(`${source}: module API version ${brand.apiVersion}, this gateway supports ${MODULE_API_VERSION}`);
    }
    const module = value as { id?: unknown; description?: unknown };
    if (typeof module.id !== "string" || module.id.length === 0) throw new ModuleError(`${source}: missing string "id"`);
    if (typeof module.description !== "string") throw new ModuleError(`${source}: missing string "description"`);
    checkRequiresShape((value as { requires?: unknown }).requires, source);
    switch (brand.kind) {
      case "provider":
        return this.add(this.providers, checkProvider(value as RegisteredProvider, source), source);
      case "plugin": {
        const plugin = this.add(this.plugins, checkPlugin(value as RegisteredPlugin, source), source);
        this.pluginOrder = [...this.plugins.values()].sort(
          (a, b) => (a.priority ?? 0) - (b.priority ?? 0) || a.id.localeCompare(b.id),
        );
        return plugin;
      }
      case "tool":
        return this.add(this.tools, checkTool(value as RegisteredTool, source), source);
      default:
        throw new ModuleError(`${source}: unknown module kind "${brand.kind}"`);
    }
  }

  provider(id: string): RegisteredProvider | undefined {
    return this.providers.get(id);
  }
  plugin(id: string): RegisteredPlugin | undefined {
    return this.plugins.get(id);
  }
  tool(id: string): RegisteredTool | undefined {
    return this.tools.get(id);
  }
  /** Plugins in run order (priority, then id); computed at registration, not per request. */
  orderedPlugins(): readonly RegisteredPlugin[] {
    return this.pluginOrder;
  }
  providerIds(): string[] {
    return [...this.providers.keys()];
  }

  /**
   * Refuses a module whose `requires` names a module nobody registered. Run once, after the built-ins and every
   * extension are registered, so modules may be listed in any order.
   */
  checkRequirements(): void {
    for (const [module, source] of this.sources) {
      const requires = module.requires;
      if (!requires) continue;
      const kind = moduleBrand(module)!.kind;
      for (const [field, noun, has] of REQUIREMENT_KINDS) {
        for (const id of requires[field] ?? []) {
          if (!has(this, id)) throw new ModuleError(`${source}: ${kind} "${module.id}" requires ${noun} "${id}", which is not registered`);
        }
      }
    }
  }

  private add<M extends RegisteredModule>(map: Map<string, M>, module: M, source: string): M {
    if (map.has(module.id)) throw new ModuleError(`${source}: a module with id "${module.id}" is already registered`);
    map.set(module.id, module);
    this.sources.set(module, source);
    return module;
  }
}

const REQUIREMENT_KINDS: ReadonlyArray<readonly [keyof ModuleRequirements, string, (registry: Registry, id: string) => boolean]> = [
  ["plugins", "plugin", (registry, id) => registry.plugin(id) !== undefined],
  ["tools", "tool", (registry, id) => registry.tool(id) !== undefined],
  ["providers", "provider", (registry, id) => registry.provider(id) !== undefined],
];

function checkRequiresShape(requires: unknown, source: string): void {
  if (requires === undefined) return;
  if (typeof requires !== "object" || requires === null || Array.isArray(requires)) {
    throw new ModuleError(`${source}: "requires" must be an object of id lists ({plugins?, tools?, providers?})`);
  }
  const fields = REQUIREMENT_KINDS.map(([field]) => field as string);
  for (const [field, ids] of Object.entries(requires)) {
    if (!fields.includes(field)) throw new ModuleError(`${source}: unknown field "requires.${field}" (plugins, tools or providers)`);
    if (!Array.isArray(ids) || ids.some((id) => typeof id !== "string" || id.length === 0)) {
      throw new ModuleError(`${source}: "requires.${field}" must be a list of module ids`);
    }
  }
}

function checkProvider(m: RegisteredProvider, source: string): RegisteredProvider {
  if (typeof m.generate !== "function" || typeof m.stream !== "function") {
    throw new ModuleError(`${source}: a provider needs generate() and stream() functions`);
  }
  for (const [name, kind] of Object.entries(m.kinds ?? {})) {
    if (typeof kind !== "object" || kind === null || typeof kind.description !== "string") throw new ModuleError(`${source}: kind "${name}" needs a string "description"`);
    for (const fn of ["generate", "stream", "images", "embed", "rerank", "discoverModels"] as const) {
      if (kind[fn] !== undefined && typeof kind[fn] !== "function") throw new ModuleError(`${source}: kind "${name}": ${fn} must be a function`);
    }
  }
  return m;
}

function checkPlugin(m: RegisteredPlugin, source: string): RegisteredPlugin {
  if (typeof m.hooks !== "object" || m.hooks === null) throw new ModuleError(`${source}: a plugin needs a "hooks" object`);
  for (const [name, hook] of Object.entries(m.hooks)) {
    if (!(PLUGIN_HOOKS as readonly string[]).includes(name)) throw new ModuleError(`${source}: unknown hook "${name}"`);
    if (typeof hook !== "function") throw new ModuleError(`${source}: hook "${name}" is not a function`);
  }
  return m;
}

function checkTool(m: RegisteredTool, source: string): RegisteredTool {
  if (!m.id.startsWith("service:")) throw new ModuleError(`${source}: a server tool id must start with "service:"`);
  if (typeof m.run !== "function") throw new ModuleError(`${source}: a tool needs a run() function`);
  return m;
}
