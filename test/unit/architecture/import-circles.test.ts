import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { importCircles, readImportGraph, runtimeSpecifiers } from "./import-graph.ts";

const ROOT = join(import.meta.dir, "../../..");

describe("runtime import graph", () => {
  test("no module of core, plugins, tools, providers or server.ts is part of a runtime import circle", () => {
    const graph = readImportGraph(ROOT);
    // The walk did read the tree (a wrong root would pass vacuously).
    expect(graph.size).toBeGreaterThan(400);
    expect(graph.get("core/app.ts")).toContain("core/http/api-prefix.ts");
    expect(importCircles(graph)).toEqual([]);
    // Parsing every source file: room for a busy machine.
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
