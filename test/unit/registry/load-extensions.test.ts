/** core/registry/load-extensions.ts: third-party modules by path (relative to the config) or package name. */
import { describe, expect, test } from "bun:test";
import { resolve } from "node:path";
import type { ExtensionRef } from "../../../core/config/types.ts";
import { loadExtensions } from "../../../core/registry/load-extensions.ts";
import { ModuleError, Registry } from "../../../core/registry/registry.ts";

const fixtures = resolve(import.meta.dir, "fixtures");
const ref = (module: string, options: Record<string, unknown> = {}): ExtensionRef => ({ module, options });

async function load(refs: ExtensionRef[], defaults: Record<string, Record<string, unknown>> = {}, configDir = fixtures) {
  const registry = new Registry();
  await loadExtensions(refs, registry, configDir, defaults);
  return { registry, defaults };
}

async function failure(refs: ExtensionRef[], configDir = fixtures): Promise<string> {
  const error = await load(refs, {}, configDir).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ModuleError);
  return (error as Error).message;
}

describe("loadExtensions", () => {
  test("a relative path is resolved against the config directory and registered", async () => {
    const { registry, defaults } = await load([ref("./good-plugin.ts")]);
    expect(registry.plugin("fixture-good")?.description).toBe("A valid plugin (fixture).");
    expect(defaults).toEqual({});
  });

  test("a parent-relative and an absolute path work too", async () => {
    expect((await load([ref("../fixtures/good-plugin.ts")], {}, resolve(fixtures, "../some-dir"))).registry.plugin("fixture-good")).toBeDefined();
    expect((await load([ref(resolve(fixtures, "good-plugin.ts"))], {}, "/")).registry.plugin("fixture-good")).toBeDefined();
  });

  test("a module built with its own copy of our code is accepted by brand", async () => {
    const { registry } = await load([ref("./foreign-copy.ts")]);
    expect(await registry.tool("service:fixture-echo")?.run({ a: 1 }, {} as never)).toEqual({ a: 1 });
  });

  test("extension options become the module's defaults; the config's plugins section wins on conflicts", async () => {
    const { defaults } = await load([ref("./good-plugin.ts", { level: 2, mode: "ext" })], { "fixture-good": { mode: "config" } });
    expect(defaults["fixture-good"]).toEqual({ level: 2, mode: "config" });
  });

  test("options that break the module's schema stop loading, naming the option", async () => {
    expect(await failure([ref("./good-plugin.ts", { level: 7 })])).toStartWith('extension "./good-plugin.ts": invalid options.level:');
    expect(await failure([ref("./good-plugin.ts", { colour: "red" })])).toStartWith('extension "./good-plugin.ts": invalid options.colour:');
  });

  test("a module for another API version is refused", async () => {
    expect(await failure([ref("./wrong-version.ts")])).toBe('extension "./wrong-version.ts": module API version 2, this gateway supports 1');
  });

  test("a module without a branded default export is refused", async () => {
    expect(await failure([ref("./named-only.ts")])).toBe('extension "./named-only.ts": not a gateway module (use definePlugin / defineTool / defineProvider)');
  });

  test("a package name is imported as a package (here one that is not a gateway module)", async () => {
    expect(await failure([ref("pino")])).toBe('extension "pino": not a gateway module (use definePlugin / defineTool / defineProvider)');
  });

  test("a missing module and a module that throws on import stop loading with a clear message", async () => {
    expect(await failure([ref("./does-not-exist.ts")])).toStartWith('extension "./does-not-exist.ts": cannot be loaded:');
    expect(await failure([ref("no-such-package-for-gateway-tests")])).toStartWith('extension "no-such-package-for-gateway-tests": cannot be loaded:');
    expect(await failure([ref("./throws-on-import.ts")])).toBe('extension "./throws-on-import.ts": cannot be loaded: fixture failed at import');
  });

  test("loading the same module twice is a duplicate id", async () => {
    expect(await failure([ref("./good-plugin.ts"), ref("./good-plugin.ts")])).toBe('extension "./good-plugin.ts": a module with id "fixture-good" is already registered');
  });
});
