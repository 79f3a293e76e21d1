/** plugins/response-healing: heal() on the broken JSON models produce, and the schema check (Ajv). */
import { describe, expect, test } from "bun:test";
import { heal } from "../../../../plugins/response-healing/heal.ts";
import { schemaCheck, VALIDATION_STEP_BUDGET } from "../../../../plugins/response-healing/schema-check.ts";

const healed = (text: string, check?: Parameters<typeof heal>[1]) => {
  const result = heal(text, check);
  if (result.kind !== "healed") throw new Error(`not healed: ${JSON.stringify(result)}`);
  return { value: JSON.parse(result.json) as unknown, fixes: result.fixes, json: result.json };
};

describe("heal", () => {
  test("valid JSON is left alone", () => {
    expect(heal('{"a": 1}')).toEqual({ kind: "valid" });
    expect(heal('  [1, 2]\n')).toEqual({ kind: "valid" });
  });

  test.each([
    ["a markdown fence", '```json\n{"name": "Ann", "age": 31}\n```', ["extracted_from_fence"]],
    ["prose around the object", 'Sure! Here it is: {"name": "Ann", "age": 31} Hope that helps.', ["extracted_from_prose"]],
    ["trailing commas", '{"name": "Ann", "age": 31,}', ["repaired_syntax"]],
    ["unquoted keys", '{name: "Ann", age: 31}', ["repaired_syntax"]],
    ["single quotes", "{'name': 'Ann', 'age': 31}", ["repaired_syntax"]],
    ["missing closing brackets", '{"name": "Ann", "age": 31', ["repaired_syntax"]],
    ["a fence around broken JSON", "Here:\n```\n{name: 'Ann', age: 31,}\n```\nDone.", ["extracted_from_fence", "repaired_syntax"]],
  ])("%s", (_label, text, fixes) => {
    const result = healed(text);
    expect(result.value).toEqual({ name: "Ann", age: 31 });
    expect(result.fixes as string[]).toEqual(fixes as string[]);
    expect(result.json).toBe('{"name":"Ann","age":31}');
  });

  test("a cut reply (missing brackets inside an array) is closed", () => {
    expect(healed('{"items": [{"id": 1}, {"id": 2').value).toEqual({ items: [{ id: 1 }, { id: 2 }] });
  });

  test("prose with no JSON, or a bare value, cannot be healed", () => {
    expect(heal("I cannot help with that.")).toEqual({ kind: "failed", reason: "no JSON object or array could be recovered" });
    expect(heal("42").kind).toBe("failed");
    expect(heal('"just a string"').kind).toBe("failed");
  });

  test("with a schema: the first candidate that matches wins; none matching is a failure that says why", () => {
    const check = schemaCheck({ type: "object", properties: { age: { type: "integer" } }, required: ["age"] })!;
    expect(healed("{age: 31,}", check).value).toEqual({ age: 31 });
    expect(heal("{age: 'old'}", check)).toEqual({ kind: "failed", reason: "the repaired JSON does not match the schema: /age must be integer" });
    expect(heal('{"age": "old"}', check)).toEqual({ kind: "failed", reason: "the JSON does not match the schema: /age must be integer" });
  });
});

describe("schemaCheck", () => {
  const schema = {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    properties: { kind: { $ref: "#/$defs/kind" }, tags: { type: "array", items: { type: "string" } } },
    required: ["kind"],
    additionalProperties: false,
    $defs: { kind: { enum: ["a", "b"] } },
  };

  test("$schema, $defs and $ref, enum, additionalProperties; messages name the path", () => {
    const check = schemaCheck(schema)!;
    expect(check({ kind: "a", tags: ["x"] })).toBeUndefined();
    expect(check({ kind: "c" })).toBe("/kind must be equal to one of the allowed values");
    expect(check({})).toBe("(root) must have required property 'kind'");
    expect(check({ kind: "a", extra: 1 })).toBe("(root) must NOT have additional properties");
    expect(check({ kind: "a", tags: [1] })).toBe("/tags/0 must be string");
  });

  test("keywords Ajv does not know (OpenAI's `strict`, vendor extensions) are tolerated; a broken schema gives no check", () => {
    expect(schemaCheck({ type: "object", strict: true, "x-vendor": 1 })!({})).toBeUndefined();
    expect(schemaCheck({ type: "no-such-type" })).toBeUndefined();
  });

  test("pattern and patternProperties run on the linear-time engine with the u flag's meaning", () => {
    const check = schemaCheck({ type: "object", properties: { e: { type: "string", pattern: "^.$" } }, patternProperties: { "^x_\\d+$": { type: "integer" } } })!;
    expect(check({ e: "😀", x_1: 2 })).toBeUndefined();
    expect(check({ e: "ab" })).toBe('/e must match pattern "^.$"');
    expect(check({ x_7: "seven" })).toBe("/x_7 must be integer");
  });

  test("a pattern the engine refuses, or patterns past the validation's step budget, leave the value unchecked and say why", () => {
    const reasons: string[] = [];
    expect(schemaCheck({ type: "object", properties: { a: { type: "string", pattern: "(a)\\1" } } }, (r) => reasons.push(r))).toBeUndefined();
    const costly = schemaCheck({ type: "object", properties: { s: { type: "string", pattern: "(?:.?){900}Z" } } }, (r) => reasons.push(r))!;
    expect(costly({ s: "x".repeat(10) })).toBe('/s must match pattern "(?:.?){900}Z"');
    expect(costly({ s: "x".repeat(VALIDATION_STEP_BUDGET / 1_000) })).toBeUndefined();
    expect(reasons).toEqual([
      'The reply was not checked against the schema: its pattern "(a)\\\\1": backreferences are not supported',
      "The reply was not checked against the schema: its patterns took more than 10,000,000 steps",
    ]);
  });

  test("validators are cached per schema text (many schemas do not grow the cache without bound)", () => {
    const first = schemaCheck(schema);
    for (let i = 0; i < 200; i++) schemaCheck({ type: "object", properties: { [`k${i}`]: { type: "string" } } });
    expect(schemaCheck(schema)!({ kind: "b" })).toBeUndefined();
    expect(first).toBeDefined();
  });
});
