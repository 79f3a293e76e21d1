/** core/registry/options.ts: module options checked against the module's schema, naming the bad option. */
import { describe, expect, test } from "bun:test";
import { Type } from "@sinclair/typebox";
import { definePlugin } from "../../../core/registry/define.ts";
import { checkModuleOptions } from "../../../core/registry/options.ts";
import { ModuleError } from "../../../core/registry/registry.ts";

const withSchema = definePlugin({
  id: "opt",
  description: "d",
  optionsSchema: Type.Object(
    { level: Type.Integer({ minimum: 1, maximum: 3 }), nested: Type.Optional(Type.Object({ name: Type.String() })) },
    { additionalProperties: false },
  ),
  hooks: {},
});

function messageOf(options: Record<string, unknown>): string {
  try {
    checkModuleOptions(withSchema, options, 'extension "./opt.ts"');
  } catch (error) {
    expect(error).toBeInstanceOf(ModuleError);
    return (error as Error).message;
  }
  throw new Error("expected a ModuleError");
}

describe("checkModuleOptions", () => {
  test("valid options pass", () => {
    expect(() => checkModuleOptions(withSchema, { level: 2, nested: { name: "x" } }, "s")).not.toThrow();
  });

  test("each kind of violation names the option path", () => {
    expect(messageOf({ level: 9 })).toStartWith('extension "./opt.ts": invalid options.level:');
    expect(messageOf({ level: "2" })).toStartWith('extension "./opt.ts": invalid options.level:');
    expect(messageOf({})).toStartWith('extension "./opt.ts": invalid options.level:');
    expect(messageOf({ level: 1, nested: { name: 3 } })).toStartWith('extension "./opt.ts": invalid options.nested.name:');
    expect(messageOf({ level: 1, typo: true })).toStartWith('extension "./opt.ts": invalid options.typo:');
  });

  test("a module without a schema accepts any options", () => {
    const free = definePlugin({ id: "free", description: "d", hooks: {} });
    expect(() => checkModuleOptions(free, { anything: [1, 2] }, "s")).not.toThrow();
  });

  test("a root-level mismatch is reported as (options)", () => {
    const scalar = definePlugin({ id: "s", description: "d", optionsSchema: Type.Object({}, { minProperties: 1 }), hooks: {} });
    expect(() => checkModuleOptions(scalar, {}, "src")).toThrow("src: invalid (options):");
  });
});
