/** Validates module options against the module's TypeBox schema, with an error naming the bad field. */
import { TypeCompiler } from "@sinclair/typebox/compiler";
import type { ModuleBase } from "./define.ts";
import { ModuleError } from "./registry.ts";

export function checkModuleOptions(module: ModuleBase, options: Record<string, unknown>, source: string): void {
  if (!module.optionsSchema) return;
  const first = TypeCompiler.Compile(module.optionsSchema).Errors(options).First();
  if (first) {
    const field = first.path === "" ? "(options)" : `options${first.path.replaceAll("/", ".")}`;
    throw new ModuleError(`${source}: invalid ${field}: ${first.message}`);
  }
}
