/** Loads third-party modules named in the config's `extensions`, by path (relative to the config) or package name. */
import { isAbsolute, resolve } from "node:path";
import type { ExtensionRef } from "../config/types.ts";
import { checkModuleOptions } from "./options.ts";
import { ModuleError, type Registry } from "./registry.ts";
import { registerSharedModules } from "./shared-modules.ts";

/** Imports and registers each extension (its default export: a module, or an array of them); options become its defaults. */
export async function loadExtensions(
  refs: readonly ExtensionRef[],
  registry: Registry,
  configDir: string,
  pluginDefaults: Record<string, Record<string, unknown>>,
): Promise<void> {
  if (refs.length > 0) registerSharedModules();
  for (const ref of refs) {
    const source = `extension "${ref.module}"`;
    const specifier = ref.module.startsWith(".") || isAbsolute(ref.module) ? resolve(configDir, ref.module) : ref.module;
    let imported: Record<string, unknown>;
    try {
      imported = (await import(specifier)) as Record<string, unknown>;
    } catch (error) {
      throw new ModuleError(`${source}: cannot be loaded: ${(error as Error).message}`);
    }
    // One module per file, or (a package bringing several) an array of them as the default export.
    const exported = imported.default ?? imported;
    for (const value of Array.isArray(exported) ? exported : [exported]) {
      const module = registry.register(value, source);
      checkModuleOptions(module, ref.options, source);
      if (module.id in pluginDefaults || Object.keys(ref.options).length > 0) {
        pluginDefaults[module.id] = { ...ref.options, ...pluginDefaults[module.id] };
      }
    }
  }
}
