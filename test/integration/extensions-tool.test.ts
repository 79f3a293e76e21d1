/** A third-party server tool from the config's `extensions` (examples/tools/word-count.ts, public SDK entry only). */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { sharedCatalogView } from "../../core/routing/catalog-view.ts";
import type { ToolRunContext } from "../../core/registry/tool.ts";
import { toolRunContext } from "../unit/tools/run-context.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";

const root = resolve(import.meta.dir, "../..");

function runContext(gw: TestGateway): ToolRunContext {
  const deps = gw.gateway.deps;
  return toolRunContext({ helpers: deps.guardedHelpers, catalog: sharedCatalogView(deps.catalog, deps.routing) });
}

describe("extension server tool", () => {
  test("the example imports nothing but the public SDK entry", () => {
    const source = readFileSync(resolve(root, "examples/tools/word-count.ts"), "utf8");
    const imports = [...source.matchAll(/^import[^;]*?from\s+"([^"]+)"/gm)].map((m) => m[1]);
    expect(imports).toEqual(["inference-gateway/sdk"]);
  });

  test("loads by path, registers as service:word_count beside the built-ins, and runs", async () => {
    const gw = await startTestGateway({ file: { extensions: ["./examples/tools/word-count.ts"] } });
    try {
      const registry = gw.gateway.deps.registry;
      const tool = registry.tool("service:word_count");
      expect(tool).toBeDefined();
      expect(tool!.description).toBe("Counts the words, characters and lines of a text.");
      expect(tool!.argumentsSchema).toMatchObject({ type: "object", required: ["text"] });
      for (const builtin of ["service:datetime", "service:experimental__search_models", "service:tool_search"]) {
        expect(registry.tool(builtin)).toBeDefined();
      }

      const ctx = runContext(gw);
      expect(await tool!.run({ text: "Hello,  wide\nworld 🌍" }, ctx)).toEqual({ words: 4, characters: 20, lines: 2 });
      expect(await tool!.run({ text: "" }, ctx)).toEqual({ words: 0, characters: 0, lines: 0 });
      await expect(tool!.run({ text: 42 }, ctx)).rejects.toThrow('"text" must be a string');
    } finally {
      await gw.close();
    }
  });

  test("without the extension the tool does not exist", async () => {
    const gw = await startTestGateway();
    try {
      expect(gw.gateway.deps.registry.tool("service:word_count")).toBeUndefined();
    } finally {
      await gw.close();
    }
  });
});
