/**
 * core/pipeline/plugins/active.ts, plugin selection: request entries, the operator's defaults (`enabled`, default
 * options, `locked`), `{id, enabled: false}`, and the 400s for unknown ids and options.
 */
import { describe, expect, test } from "bun:test";
import { Type } from "@sinclair/typebox";
import { GatewayError } from "../../../../core/errors.ts";
import type { PluginRequest } from "../../../../core/model/request.ts";
import { resolvePlugins } from "../../../../core/pipeline/plugins/active.ts";
import { definePlugin } from "../../../../core/registry/define.ts";
import { Registry } from "../../../../core/registry/registry.ts";
import { canonicalRequest, testConfig, testContext, testDeps } from "../helpers.ts";

const schema = Type.Object(
  {
    level: Type.Optional(Type.Integer({ minimum: 1, maximum: 3 })),
    mode: Type.Optional(Type.Union([Type.Literal("a"), Type.Literal("b")])),
    nested: Type.Optional(Type.Object({ depth: Type.Optional(Type.Integer({ minimum: 0 })) }, { additionalProperties: false })),
  },
  { additionalProperties: false },
);

function setup(plugins: PluginRequest[], config: Record<string, Record<string, unknown>> = {}) {
  const registry = new Registry();
  registry.register(definePlugin({ id: "opt-in", description: "", optionsSchema: schema, hooks: {} }), "test");
  registry.register(definePlugin({ id: "default-on", description: "", enabledByDefault: true, optionsSchema: schema, hooks: {} }), "test");
  registry.register(definePlugin({ id: "free-form", description: "", hooks: {} }), "test");
  const ctx = testContext({ deps: testDeps({ registry, config: testConfig({ plugins: config }) }), request: canonicalRequest({ plugins }) });
  return { ctx, active: () => resolvePlugins(ctx) };
}

const ids = (list: ReturnType<typeof resolvePlugins>) => list.map((a) => a.plugin.id);
const contextOf = (list: ReturnType<typeof resolvePlugins>, id: string) => {
  const found = list.find((a) => a.plugin.id === id)!;
  return found.contextFor(canonicalRequest());
};

function refused(run: () => unknown): GatewayError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError);
    return error as GatewayError;
  }
  throw new Error("expected a 400");
}

describe("which plugins run", () => {
  test("a default plugin runs unasked; an opt-in one only when named; {enabled: false} turns a default off", () => {
    expect(ids(setup([]).active())).toEqual(["default-on"]);
    expect(ids(setup([{ id: "opt-in" }]).active())).toEqual(["default-on", "opt-in"]);
    expect(ids(setup([{ id: "default-on", enabled: false }]).active())).toEqual([]);
    expect(ids(setup([{ id: "opt-in", enabled: false }]).active())).toEqual(["default-on"]);
  });

  test("the operator turns a plugin on for everyone (enabled: true) or off (enabled: false); a request still overrides", () => {
    expect(ids(setup([], { "opt-in": { enabled: true } }).active())).toEqual(["default-on", "opt-in"]);
    expect(ids(setup([], { "default-on": { enabled: false } }).active())).toEqual([]);
    expect(ids(setup([{ id: "default-on" }], { "default-on": { enabled: false } }).active())).toEqual(["default-on"]);
    expect(ids(setup([{ id: "opt-in", enabled: false }], { "opt-in": { enabled: true } }).active())).toEqual(["default-on"]);
  });

  test("explicit: true when the request or the operator turned it on, false when it runs only by default", () => {
    expect(contextOf(setup([]).active(), "default-on").explicit).toBe(false);
    expect(contextOf(setup([{ id: "default-on" }]).active(), "default-on").explicit).toBe(true);
    expect(contextOf(setup([], { "default-on": { enabled: true } }).active(), "default-on").explicit).toBe(true);
    expect(contextOf(setup([{ id: "opt-in" }]).active(), "opt-in").explicit).toBe(true);
  });
});

describe("options", () => {
  test("config defaults are overridden key by key by the request's entry; switches are not options", () => {
    const { active } = setup([{ id: "opt-in", mode: "b" }], { "opt-in": { enabled: true, level: 2, mode: "a" } });
    expect(active().find((a) => a.plugin.id === "opt-in")!.options).toEqual({ level: 2, mode: "b" });
    const unnamed = setup([], { "opt-in": { enabled: true, level: 2 } }).active();
    expect(unnamed.find((a) => a.plugin.id === "opt-in")!.options).toEqual({ level: 2 });
  });

  test("an unknown option, an out-of-range value and a bad nested value are 400s naming the field", () => {
    const unknown = refused(() => setup([{ id: "free-form" }, { id: "opt-in", colour: "red" }]).active());
    expect(unknown.status).toBe(400);
    expect(unknown.message).toBe('plugins[1].colour: unknown option of plugin "opt-in"');
    expect(unknown.metadata).toEqual({ param: "plugins[1].colour" });
    expect(refused(() => setup([{ id: "opt-in", level: 4 }]).active()).message).toMatch(/^plugins\[0\]\.level: Expected integer to be less or equal to 3/);
    expect(refused(() => setup([{ id: "opt-in", nested: { depth: -1 } }]).active()).message).toMatch(/^plugins\[0\]\.nested\.depth: /);
    expect(refused(() => setup([{ id: "opt-in", nested: { width: 1 } }]).active()).message).toBe('plugins[0].nested.width: unknown option of plugin "opt-in"');
  });

  test("a value at the boundary passes; a plugin without an options schema takes anything", () => {
    expect(setup([{ id: "opt-in", level: 3 }]).active().at(-1)!.options).toEqual({ level: 3 });
    expect(setup([{ id: "free-form", anything: [1, 2] }]).active().at(-1)!.options).toEqual({ anything: [1, 2] });
  });

  test("an unknown plugin id is a 400 naming the entry", () => {
    const error = refused(() => setup([{ id: "opt-in" }, { id: "nope" }]).active());
    expect([error.status, error.type, error.message]).toEqual([400, "invalid_request", 'plugins[1].id: plugin "nope" is not available on this gateway']);
  });

  test("each active plugin has its own state for the request, shared by all its hooks' contexts", () => {
    const list = setup([{ id: "opt-in" }]).active();
    const [a, b] = list;
    a!.contextFor(canonicalRequest()).state.set("k", 1);
    expect(a!.contextFor(canonicalRequest()).state.get("k")).toBe(1);
    expect(b!.contextFor(canonicalRequest()).state.has("k")).toBe(false);
  });
});

describe("locked settings", () => {
  test("a locked plugin keeps the operator's switch and options; an entry that changes them is ignored with a warning", () => {
    const { ctx, active } = setup([{ id: "default-on", enabled: false }, { id: "opt-in", level: 3 }], {
      "default-on": { locked: true, level: 1 },
      "opt-in": { locked: true, enabled: true, level: 2 },
    });
    const list = active();
    expect(ids(list)).toEqual(["default-on", "opt-in"]);
    expect(list.map((a) => a.options)).toEqual([{ level: 1 }, { level: 2 }]);
    expect(ctx.request.warnings).toEqual([
      { code: "plugin_locked", field: "plugins[0]", message: 'The operator locked plugin "default-on"; this entry was ignored' },
      { code: "plugin_locked", field: "plugins[1]", message: 'The operator locked plugin "opt-in"; this entry was ignored' },
    ]);
  });

  test("a locked-off plugin cannot be turned on; naming a locked-on plugin as it is draws no warning", () => {
    const off = setup([{ id: "opt-in" }], { "opt-in": { locked: true, enabled: false } });
    expect(ids(off.active())).toEqual(["default-on"]);
    expect(off.ctx.request.warnings.map((w) => w.code)).toEqual(["plugin_locked"]);
    const same = setup([{ id: "default-on" }, { id: "default-on", enabled: true }], { "default-on": { locked: true } });
    expect(ids(same.active())).toEqual(["default-on"]);
    expect(same.ctx.request.warnings).toEqual([]);
  });

  test("options a locked entry would have refused are not even checked (the entry is ignored)", () => {
    const { ctx, active } = setup([{ id: "opt-in", level: 99 }], { "opt-in": { locked: true, enabled: true } });
    expect(active().at(-1)!.options).toEqual({});
    expect(ctx.request.warnings).toHaveLength(1);
  });
});
