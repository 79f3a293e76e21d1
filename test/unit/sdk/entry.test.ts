/**
 * The public SDK entry (`inference-gateway/sdk`, package.json `exports`): modules defined through it are accepted by
 * the registry, and the examples — our stand-ins for third-party modules — import nothing of ours but that entry.
 */
import { describe, expect, test } from "bun:test";
import { Glob } from "bun";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import * as sdk from "inference-gateway/sdk";
import { Registry } from "../../../core/registry/registry.ts";

const root = resolve(import.meta.dir, "../../..");
/** What a third-party module may import of ours: the SDK and, for provider adapters, the provider kit. */
const SDK_ENTRIES = new Set(["inference-gateway/sdk", "inference-gateway/sdk/provider"]);

describe("SDK entry", () => {
  test("package.json exports the SDK, the provider kit and the conformance kit", () => {
    const pkg = JSON.parse(readFileSync(resolve(root, "package.json"), "utf8")) as { exports: Record<string, string> };
    expect(pkg.exports["./sdk"]).toBe("./core/sdk/index.ts");
    expect(pkg.exports["./sdk/provider"]).toBe("./core/sdk/provider.ts");
    expect(pkg.exports["./sdk/conformance"]).toBe("./core/sdk/conformance.ts");
  });

  test("a plugin, a tool and a provider defined through it register", () => {
    const registry = new Registry();
    registry.register(sdk.definePlugin({ id: "p", description: "d", hooks: { around: (_ctx, turn) => turn(_ctx.request) } }), "sdk plugin");
    registry.register(sdk.defineTool({ id: "service:x", description: "d", argumentsSchema: {}, run: async () => ({}) }), "sdk tool");
    registry.register(
      sdk.defineProvider({ id: "x", description: "d", generate: () => Promise.reject(new Error("unused")), stream: () => Promise.reject(new Error("unused")) }),
      "sdk provider",
    );
    expect(registry.plugin("p")?.hooks.around).toBeFunction();
    expect(registry.tool("service:x")).toBeDefined();
    expect(registry.provider("x")).toBeDefined();
  });

  test("the outcome helpers build what a turn returns", async () => {
    const events = (async function* () {
      yield { type: "text-delta" as const, id: "t", delta: "hi" };
      yield { type: "finish" as const, finish: { reason: "stop" as const } };
    })();
    const seen: string[] = [];
    const outcome = sdk.streamOutcome(events);
    outcome.observe({ event: (e) => (seen.push(e.type), e), fail: () => {}, end: () => seen.push("end") });
    const response = await sdk.collect(outcome.events);
    expect(response.parts).toEqual([{ type: "text", text: "hi" }]);
    expect(seen).toEqual(["text-delta", "finish", "end"]);
    expect(sdk.responseOutcome(response)).toEqual({ kind: "response", response });
  });

  test("every example module imports only the SDK entries (and third-party packages), never core/ by path", () => {
    const files = [...new Glob("examples/**/*.ts").scanSync(root), "test/fixtures/extensions/turn-wrapper.ts", "test/fixtures/extensions/throws.ts"];
    expect(files.length).toBeGreaterThanOrEqual(4);
    for (const file of files) {
      const specifiers = [...readFileSync(resolve(root, file), "utf8").matchAll(/^import[^"']*["']([^"']+)["']/gm)].map((m) => m[1]!);
      for (const specifier of specifiers) {
        const ok = SDK_ENTRIES.has(specifier) || (!specifier.startsWith(".") && !specifier.startsWith("inference-gateway"));
        expect({ file, specifier, ok }).toEqual({ file, specifier, ok: true });
      }
    }
  });
});
