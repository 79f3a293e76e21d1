/** core/registry/registry.ts: registration checks (brand, kind, API version, shape, duplicates) and lookups. */
import { describe, expect, test } from "bun:test";
import { MODULE_BRAND, definePlugin, defineProvider, defineTool } from "../../../core/registry/define.ts";
import { ModuleError, Registry } from "../../../core/registry/registry.ts";

const provider = (id = "acme") =>
  defineProvider({ id, description: "test adapter", generate: () => Promise.reject(new Error("unused")), stream: () => Promise.reject(new Error("unused")) });
const plugin = (id: string, priority?: number) => definePlugin({ id, description: `plugin ${id}`, ...(priority === undefined ? {} : { priority }), hooks: {} });
const tool = (id = "service:clock") => defineTool({ id, description: "test tool", argumentsSchema: {}, run: async () => "now" });

/** A hand-branded value, as a module with its own copy of define.ts (or a broken one) would carry. */
const branded = (kind: unknown, apiVersion: unknown, body: Record<string, unknown>) => ({ ...body, [MODULE_BRAND]: { kind, apiVersion } });

function refusal(value: unknown, source = "test-module"): string {
  try {
    new Registry().register(value, source);
  } catch (error) {
    expect(error).toBeInstanceOf(ModuleError);
    return (error as Error).message;
  }
  throw new Error("expected the registry to refuse the module");
}

describe("Registry.register", () => {
  test("accepts each kind and makes it findable by id", () => {
    const registry = new Registry();
    const p = provider();
    const pl = plugin("p1");
    const t = tool();
    expect(registry.register(p, "a")).toBe(p);
    expect(registry.register(pl, "b")).toBe(pl);
    expect(registry.register(t, "c")).toBe(t);
    expect(registry.provider("acme")).toBe(p);
    expect(registry.plugin("p1")).toBe(pl);
    expect(registry.tool("service:clock")).toBe(t);
    expect(registry.providerIds()).toEqual(["acme"]);
    expect(registry.provider("p1")).toBeUndefined();
    expect(registry.plugin("acme")).toBeUndefined();
  });

  test("refuses values without our brand, naming the source", () => {
    const plain = { id: "x", description: "d", hooks: {} };
    expect(refusal(plain, 'extension "./x.ts"')).toBe('extension "./x.ts": not a gateway module (use definePlugin / defineTool / defineProvider)');
    expect(refusal(null)).toContain("not a gateway module");
    expect(refusal(() => 1)).toContain("not a gateway module");
    expect(refusal({ ...plain, [Symbol("inference-gateway.module")]: { kind: "plugin", apiVersion: 1 } })).toContain("not a gateway module");
    expect(refusal(branded("plugin", "1", plain))).toContain("not a gateway module");
    expect(refusal(branded(1, 1, plain))).toContain("not a gateway module");
  });

  test("refuses another module API version", () => {
    expect(refusal(branded("plugin", 2, { id: "x", description: "d", hooks: {} }))).toBe("test-module: module API version 2, this gateway supports 1");
    expect(refusal(branded("plugin", 0, { id: "x", description: "d", hooks: {} }))).toContain("module API version 0");
  });

  test("refuses an unknown kind", () => {
    expect(refusal(branded("router", 1, { id: "x", description: "d" }))).toBe('test-module: unknown module kind "router"');
  });

  test("requires a string id and description", () => {
    expect(refusal(branded("plugin", 1, { description: "d", hooks: {} }))).toBe('test-module: missing string "id"');
    expect(refusal(branded("plugin", 1, { id: "", description: "d", hooks: {} }))).toBe('test-module: missing string "id"');
    expect(refusal(branded("plugin", 1, { id: 5, description: "d", hooks: {} }))).toBe('test-module: missing string "id"');
    expect(refusal(branded("plugin", 1, { id: "x", hooks: {} }))).toBe('test-module: missing string "description"');
  });

  test("a module branded as one kind must have that kind's shape", () => {
    // A plugin body branded as a provider (wrong kind for the shape) and vice versa.
    expect(refusal(branded("provider", 1, { id: "x", description: "d", hooks: {} }))).toBe("test-module: a provider needs generate() and stream() functions");
    expect(refusal(branded("provider", 1, { id: "x", description: "d", generate: () => 1 }))).toContain("needs generate() and stream()");
    expect(refusal(branded("plugin", 1, { id: "x", description: "d", generate: () => 1, stream: () => 1 }))).toBe('test-module: a plugin needs a "hooks" object');
    expect(refusal(branded("plugin", 1, { id: "x", description: "d", hooks: null }))).toBe('test-module: a plugin needs a "hooks" object');
    expect(refusal(branded("tool", 1, { id: "service:x", description: "d" }))).toBe("test-module: a tool needs a run() function");
  });

  test("a provider's kinds need a description, and their calls must be functions", () => {
    const withKinds = (kinds: unknown) => branded("provider", 1, { id: "x", description: "d", generate: () => 1, stream: () => 1, kinds });
    expect(refusal(withKinds({ local: { defaultBaseUrl: "http://127.0.0.1:1" } }))).toBe('test-module: kind "local" needs a string "description"');
    expect(refusal(withKinds({ local: { description: "l", stream: "yes" } }))).toBe('test-module: kind "local": stream must be a function');
    expect(() => new Registry().register(withKinds({ local: { description: "l", discoverModels: async () => [] } }), "x")).not.toThrow();
  });

  test("plugin hooks must be known phases and functions", () => {
    expect(refusal(branded("plugin", 1, { id: "x", description: "d", hooks: { before: () => {} } }))).toBe('test-module: unknown hook "before"');
    expect(refusal(branded("plugin", 1, { id: "x", description: "d", hooks: { pre: "yes" } }))).toBe('test-module: hook "pre" is not a function');
    expect(() => new Registry().register(definePlugin({ id: "all", description: "d", hooks: { pre() {}, route: (_c, c) => c, post: (_c, r) => r, stream: (_c, e) => e } }), "x")).not.toThrow();
  });

  test("a server tool id must start with service:", () => {
    expect(refusal(tool("clock"))).toBe('test-module: a server tool id must start with "service:"');
    expect(refusal(tool("web_search"))).toContain('must start with "service:"');
  });

  test("a duplicate id within a kind is refused and the first registration stays", () => {
    const registry = new Registry();
    const first = plugin("dup");
    registry.register(first, "first");
    expect(() => registry.register(plugin("dup"), "second")).toThrow('second: a module with id "dup" is already registered');
    expect(registry.plugin("dup")).toBe(first);
    expect(registry.orderedPlugins()).toEqual([first]);
    registry.register(provider("shared-name"), "p");
    expect(() => registry.register(provider("shared-name"), "p2")).toThrow(ModuleError);
  });

  test("the same id in different kinds does not collide", () => {
    const registry = new Registry();
    registry.register(provider("same"), "a");
    expect(() => registry.register(plugin("same"), "b")).not.toThrow();
  });
});

describe("plugin order", () => {
  test("priority ascending, then id; recomputed at registration", () => {
    const registry = new Registry();
    for (const p of [plugin("b"), plugin("a"), plugin("late", 10), plugin("early", -1), plugin("c", 0)]) registry.register(p, p.id);
    expect(registry.orderedPlugins().map((p) => p.id)).toEqual(["early", "a", "b", "c", "late"]);
    registry.register(plugin("aa", 0), "aa");
    expect(registry.orderedPlugins().map((p) => p.id)).toEqual(["early", "a", "aa", "b", "c", "late"]);
  });

  test("the list is computed once, not per call", () => {
    const registry = new Registry();
    registry.register(plugin("a"), "a");
    expect(registry.orderedPlugins()).toBe(registry.orderedPlugins());
  });
});

describe("requires", () => {
  const needing = (requires: Record<string, unknown>) => definePlugin({ id: "needy", description: "needs others", hooks: {}, requires: requires as never });

  test("a required module of each kind that nobody registered stops start-up, naming the module and what it lacks", () => {
    for (const [requires, lacks] of [
      [{ plugins: ["response-healing"] }, 'plugin "response-healing"'],
      [{ tools: ["service:web_fetch"] }, 'tool "service:web_fetch"'],
      [{ providers: ["anthropic"] }, 'provider "anthropic"'],
    ] as const) {
      const registry = new Registry();
      registry.register(needing(requires), 'extension "./needy.ts"');
      expect(() => registry.checkRequirements()).toThrow(new ModuleError(`extension "./needy.ts": plugin "needy" requires ${lacks}, which is not registered`));
    }
  });

  test("met in any registration order, and looked up in the kind it names", () => {
    const registry = new Registry();
    registry.register(needing({ plugins: ["helper"], tools: ["service:clock"], providers: ["acme"] }), "first");
    registry.register(plugin("helper"), "second");
    registry.register(tool(), "third");
    registry.register(provider(), "fourth");
    expect(() => registry.checkRequirements()).not.toThrow();

    // A provider called "helper" does not satisfy a required plugin "helper".
    const other = new Registry();
    other.register(needing({ plugins: ["helper"] }), "first");
    other.register(provider("helper"), "second");
    expect(() => other.checkRequirements()).toThrow('requires plugin "helper"');
  });

  test("tools and providers may require too; the first missing one is named", () => {
    const registry = new Registry();
    registry.register(defineTool({ id: "service:needy", description: "d", argumentsSchema: {}, run: async () => "", requires: { tools: ["service:clock", "service:gone"] } }), "t");
    registry.register(tool(), "clock");
    expect(() => registry.checkRequirements()).toThrow('t: tool "service:needy" requires tool "service:gone", which is not registered');
  });

  test("a malformed requires is refused at registration", () => {
    expect(refusal(needing(["response-healing"] as never))).toBe('test-module: "requires" must be an object of id lists ({plugins?, tools?, providers?})');
    expect(refusal(needing({ modules: ["x"] }))).toBe('test-module: unknown field "requires.modules" (plugins, tools or providers)');
    expect(refusal(needing({ plugins: "x" }))).toBe('test-module: "requires.plugins" must be a list of module ids');
    expect(refusal(needing({ plugins: [""] }))).toBe('test-module: "requires.plugins" must be a list of module ids');
  });
});
