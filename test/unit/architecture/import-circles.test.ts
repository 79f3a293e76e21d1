import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { importCircles, readImportGraph, runtimeSpecifiers } from "./import-graph.ts";

const ROOT = join(import.meta.dir, "../../..");
const STAGES = "core/pipeline/stages/";

describe("runtime import graph", () => {
  test("no module of core, plugins, tools, providers or server.ts is part of a runtime import circle", () => {
    const graph = readImportGraph(ROOT);
    // The walk did read the tree (a wrong root would pass vacuously).
    expect(graph.size).toBeGreaterThan(400);
    expect(graph.get("core/app.ts")).toContain("core/http/api-prefix.ts");
    expect(importCircles(graph)).toEqual([]);
    // Parsing every source file: room for a busy machine.
  }, 60_000);

  test("the model turn and the agent loop import no pipeline stage, and no stage imports another (type imports too)", () => {
    const graph = readImportGraph(ROOT, true, ["core/pipeline"]);
    const stages = [...graph.keys()].filter((file) => file.startsWith(STAGES));
    // The walk did find the stages and the turn (a wrong directory would pass vacuously).
    expect(stages).toContain("core/pipeline/stages/limits.ts");
    expect(graph.get("core/pipeline/turn/turn.ts")?.length).toBeGreaterThan(0);
    const forbidden: string[] = [];
    for (const [file, targets] of graph) {
      const inner = file.startsWith(STAGES) || file.startsWith("core/pipeline/turn/") || file.startsWith("core/pipeline/agent/");
      for (const target of targets) if (inner && target.startsWith(STAGES)) forbidden.push(`${file} -> ${target}`);
    }
    expect(forbidden).toEqual([]);
  }, 60_000);

  test("the one type-only circle is the one the README's Architecture section explains, and holds no module", () => {
    const circles = importCircles(readImportGraph(ROOT, true));
    // Types of the request (core/pipeline/context.ts) and of the services it carries (core/deps.ts) name each other;
    // nothing of it runs. A plugin, tool or provider in it would mean a module reached past the SDK.
    expect(circles.length).toBeLessThanOrEqual(1);
    for (const circle of circles) {
      expect(circle).toContain("core/deps.ts");
      expect(circle).toContain("core/pipeline/context.ts");
      expect(circle.filter((file) => !file.startsWith("core/"))).toEqual([]);
    }
  }, 60_000);

  test("type-only imports and exports are not runtime edges; everything else that names a module is", () => {
    const source = [
      'import type { A } from "./type-only.ts";',
      'import { type B, type C } from "./inline-types.ts";',
      'import { type D, e } from "./mixed.ts";',
      'import f from "./default.ts";',
      'import * as g from "./namespace.ts";',
      'import "./side-effect.ts";',
      'export type { H } from "./export-type.ts";',
      'export { i } from "./re-export.ts";',
      'export * from "./star.ts";',
      'import { Elysia } from "elysia";',
      'const later = () => import("./dynamic.ts");',
    ].join("\n");
    expect(runtimeSpecifiers(source)).toEqual(["./mixed.ts", "./default.ts", "./namespace.ts", "./side-effect.ts", "./re-export.ts", "./star.ts"]);
  });

  test("a circle is found whatever its length, a chain is not one", () => {
    const chain = new Map([["a", ["b"]], ["b", ["c"]], ["c", []]]);
    expect(importCircles(chain)).toEqual([]);
    const circle = new Map([["a", ["b"]], ["b", ["c"]], ["c", ["a", "d"]], ["d", []], ["e", ["e"]]]);
    expect(importCircles(circle)).toEqual([["a", "b", "c"], ["e"]]);
  });
});
