/** plugins/router-kit/patterns.ts: model wildcards and the spec's limits on the lists, at their boundaries. */
import { describe, expect, test } from "bun:test";
import { createModuleHelpers } from "../../../../core/registry/module-helpers.ts";
import { compilePatterns, filterByPatterns, matchesPattern, PATTERN_LIMITS } from "../../../../plugins/router-kit/patterns.ts";
import pino from "pino";
import { createMemoryKv } from "../../../../core/kv/memory.ts";

const clock = { now: () => 0 };
const helpers = createModuleHelpers({ logger: pino({ level: "silent" }), fetch, kv: createMemoryKv(clock), clock, ids: { id: (p) => p } });
const compile = (list: unknown) => compilePatterns(list, "plugins[0].allowed_models", helpers)!;
const matches = (pattern: string, id: string) => matchesPattern(compile([pattern])[0]!, id);

describe("matching", () => {
  test.each([
    ["acme/*", "acme/model-a", true],
    ["acme/*", "other/model-a", false],
    ["*-mini", "acme/gpt-mini", true],
    ["*", "anything/at-all", true],
    ["acme/*-large*", "acme/model-large-2", true],
    ["acme/*a*b*c", "acme/xaybzc", true],
    ["acme/*a*b*c", "acme/xcybza", false],
    ["ACME/Model", "acme/model", true],
    ["acme/model", "acme/model-2", false],
    ["a*a", "a", false],
  ])("%s ~ %s: %p", (pattern, id, expected) => {
    expect(matches(pattern, id)).toBe(expected);
  });

  test("an exclusion always wins over an inclusion", () => {
    const items = [{ id: "acme/a" }, { id: "acme/b" }, { id: "other/c" }];
    expect(filterByPatterns(items, compile(["acme/*"]), compile(["*/b"])).map((i) => i.id)).toEqual(["acme/a"]);
    expect(filterByPatterns(items, undefined, compile(["acme/*"])).map((i) => i.id)).toEqual(["other/c"]);
  });

  test("a pathological pattern stays linear", () => {
    const pattern = compile([`${"*a".repeat(500)}*b`])[0]!;
    const start = performance.now();
    for (let i = 0; i < 1000; i++) matchesPattern(pattern, "a".repeat(200));
    expect(performance.now() - start).toBeLessThan(200);
  });
});

describe("limits", () => {
  const fails = (list: unknown) => {
    try {
      compile(list);
    } catch (error) {
      return (error as Error).message;
    }
    return undefined;
  };

  test("1,024 patterns pass, 1,025 do not", () => {
    expect(fails(Array.from({ length: PATTERN_LIMITS.count }, (_, i) => `m${i}`))).toBeUndefined();
    expect(fails(Array.from({ length: PATTERN_LIMITS.count + 1 }, (_, i) => `m${i}`))).toContain("at most 1024 patterns");
  });

  test("1,024 characters a pattern pass, 1,025 do not", () => {
    expect(fails(["x".repeat(1024)])).toBeUndefined();
    expect(fails(["x".repeat(1025)])).toBe("plugins[0].allowed_models[0]: at most 1024 characters, got 1025");
  });

  test("65,536 characters in all pass, 65,537 do not", () => {
    const full = Array.from({ length: 64 }, () => "x".repeat(1024));
    expect(fails(full)).toBeUndefined();
    expect(fails([...full, "y"])).toBe("plugins[0].allowed_models: at most 65536 characters in all, got 65537");
  });

  test("shapes: not an array, an empty pattern", () => {
    expect(fails("acme/*")).toContain("must be an array");
    expect(fails([""])).toContain("[0]: must be a non-empty string");
    expect(compilePatterns(undefined, "x", helpers)).toBeUndefined();
  });
});
