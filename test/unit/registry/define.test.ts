/** core/registry/define.ts: frozen, branded module values and the brand reader. */
import { describe, expect, test } from "bun:test";
import { MODULE_API_VERSION, MODULE_BRAND, definePlugin, defineProvider, defineTool, moduleBrand } from "../../../core/registry/define.ts";

describe("define*", () => {
  test("brands each kind with the global symbol and the current API version", () => {
    const p = definePlugin({ id: "p", description: "d", hooks: {} });
    const t = defineTool({ id: "service:t", description: "d", argumentsSchema: {}, run: async () => null });
    const v = defineProvider({ id: "v", description: "d", generate: () => Promise.reject(new Error()), stream: () => Promise.reject(new Error()) });
    expect(moduleBrand(p)).toEqual({ kind: "plugin", apiVersion: MODULE_API_VERSION });
    expect(moduleBrand(t)).toEqual({ kind: "tool", apiVersion: MODULE_API_VERSION });
    expect(moduleBrand(v)).toEqual({ kind: "provider", apiVersion: MODULE_API_VERSION });
    expect(MODULE_BRAND === Symbol.for("inference-gateway.module")).toBe(true);
    expect(MODULE_API_VERSION).toBe(1);
  });

  test("returns a frozen copy and leaves the input alone", () => {
    const input = { id: "p", description: "d", hooks: {} };
    const defined = definePlugin(input);
    expect(defined).not.toBe(input);
    expect(Object.isFrozen(defined)).toBe(true);
    expect(Object.isFrozen(defined[MODULE_BRAND])).toBe(true);
    expect(Object.getOwnPropertySymbols(input)).toEqual([]);
    expect(() => {
      (defined as { id: string }).id = "changed";
    }).toThrow();
    expect(defined.id).toBe("p");
  });
});

describe("moduleBrand", () => {
  test("is undefined for anything without a well-formed brand", () => {
    expect(moduleBrand(undefined)).toBeUndefined();
    expect(moduleBrand("plugin")).toBeUndefined();
    expect(moduleBrand({})).toBeUndefined();
    expect(moduleBrand({ [MODULE_BRAND]: "plugin" })).toBeUndefined();
    expect(moduleBrand({ [MODULE_BRAND]: { kind: "plugin" } })).toBeUndefined();
    expect(moduleBrand({ [MODULE_BRAND]: { apiVersion: 1 } })).toBeUndefined();
  });

  test("reads a brand written by another copy of the code (same global symbol)", () => {
    expect(moduleBrand({ [Symbol.for("inference-gateway.module")]: { kind: "tool", apiVersion: 1 } })).toEqual({ kind: "tool", apiVersion: 1 });
  });
});
