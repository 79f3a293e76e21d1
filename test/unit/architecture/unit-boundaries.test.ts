/**
 * A plugin or server tool (a directory under plugins/ or tools/ with an index.ts, or a tools/<name>.ts) may import
 * core only through the SDK, and another unit's files only when its module declares that unit in `requires`
 * (core/registry/define.ts). Kits (router-kit, container-kit: directories with no module) are shared code any unit
 * may import.
 */
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { ModuleRequirements } from "../../../core/sdk/index.ts";
import { readImportGraph } from "./import-graph.ts";

const ROOT = join(import.meta.dir, "../../..");
const KINDS = { plugins: "plugins", tools: "tools" } as const satisfies Record<string, keyof ModuleRequirements>;

/** `plugins/fusion` for plugins/fusion/analysis.ts; `tools/tool-search` for tools/tool-search.ts and tools/tool-search/bm25.ts. */
function unitOf(file: string): string | undefined {
  const [top, second, third] = file.split("/");
  if ((top !== "plugins" && top !== "tools") || second === undefined) return undefined;
  if (third === undefined) return second === "index.ts" ? undefined : `${top}/${second.replace(/\.ts$/, "")}`;
  return `${top}/${second}`;
}

interface UnitModule {
  id: string;
  requires?: ModuleRequirements;
}

/** The unit's module, or undefined for a kit. */
async function moduleOf(unit: string): Promise<UnitModule | undefined> {
  for (const entry of [`${unit}/index.ts`, `${unit}.ts`]) {
    if (existsSync(join(ROOT, entry))) return ((await import(join(ROOT, entry))) as { default: UnitModule }).default;
  }
  return undefined;
}

describe("unit boundaries", () => {
  test("a unit imports core only through the SDK, and another unit only when it declares it in requires", async () => {
    const graph = readImportGraph(ROOT, true, ["plugins", "tools"]);
    const modules = new Map<string, UnitModule | undefined>();
    const module = async (unit: string) => {
      if (!modules.has(unit)) modules.set(unit, await moduleOf(unit));
      return modules.get(unit);
    };
    const violations: string[] = [];
    const declared: string[] = [];
    for (const [file, targets] of graph) {
      const unit = unitOf(file);
      if (!unit) continue;
      for (const target of targets) {
        if (target.startsWith("core/") && target !== "core/sdk/index.ts") violations.push(`${file} imports ${target}: use core/sdk/index.ts`);
        const other = unitOf(target);
        if (!other || other === unit) continue;
        const wanted = await module(other);
        if (!wanted) continue; // a kit
        const importer = await module(unit);
        const kind = KINDS[other.split("/")[0] as keyof typeof KINDS];
        if (importer?.requires?.[kind]?.includes(wanted.id)) declared.push(`${unit} -> ${other}`);
        else violations.push(`${file} imports ${target}: ${importer ? `"${importer.id}"` : `the kit ${unit}`} does not declare requires.${kind} "${wanted.id}"`);
      }
    }
    expect(violations).toEqual([]);
    // The walk saw the one declared use there is (a walk that read nothing would pass the check above).
    expect([...new Set(declared)]).toEqual(["plugins/fusion -> plugins/response-healing"]);
    // Parsing every file and importing every module is start-up-sized work: room for a busy machine.
  }, 60_000);
});
