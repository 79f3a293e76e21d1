/**
 * JSON values generated from a JSON schema, so simulated tool calls and structured replies (`response_format` /
 * `text.format` json_schema) validate against it.
 */

export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

type Schema = Record<string, unknown>;

/** Deeper than any real schema; a self-referencing `$ref` stops here instead of recursing forever. */
const MAX_DEPTH = 32;
/**
 * What one generated value may hold at most: a schema is the client's input, and `minItems: 100000000`, a
 * `minLength` of a billion or two self-references per level (2^32 nodes at the depth cap) would otherwise build
 * without end on the event loop. Past the budget arrays and objects stop growing and strings stop short, so such a
 * reply no longer satisfies its schema, which no real schema comes near.
 */
export const MAX_VALUES = 10_000;
export const MAX_CHARS = 1_000_000;

interface Budget {
  values: number;
  chars: number;
}

/**
 * Fills an object schema: the `required` properties, or every property when none is required. Per property:
 * `const` or the first `enum` value when given, else by type: string → "simulated" (padded or cut to its length
 * bounds), number/integer → its `default`, else its `minimum` (at least 1), else 1, never above its `maximum`,
 * boolean → true, array → `minItems` items (none by default), object → filled the same way, null → null (a type
 * list uses its first non-null type). `$ref` into the schema's `$defs` / `definitions` is followed; `anyOf` /
 * `oneOf` take their first non-null branch, `allOf` its branches merged.
 */
export function argumentsFromSchema(schema: Schema | undefined): Record<string, Json> {
  const value = schema === undefined ? {} : valueFor(schema, schema, 0, freshBudget());
  return isObject(value) ? value : {};
}

/** A whole JSON value for `schema` (a structured reply may be any JSON, though it is almost always an object). */
export function valueFromSchema(schema: Schema): Json {
  return valueFor(schema, schema, 0, freshBudget());
}

function freshBudget(): Budget {
  return { values: MAX_VALUES, chars: MAX_CHARS };
}

function valueFor(schema: Schema | undefined, root: Schema, depth: number, budget: Budget): Json {
  budget.values--;
  if (schema === undefined || depth > MAX_DEPTH) return "simulated";
  const resolved = resolve(schema, root);
  if ("const" in resolved && isJson(resolved.const)) return resolved.const;
  if (Array.isArray(resolved.enum) && resolved.enum.length > 0 && isJson(resolved.enum[0])) return resolved.enum[0];
  const branch = firstBranch(resolved);
  if (branch !== undefined) return valueFor(branch, root, depth + 1, budget);
  const types = Array.isArray(resolved.type) ? resolved.type : [resolved.type];
  const type = types.find((t) => t !== "null") ?? types[0] ?? (asRecord(resolved.properties) ? "object" : undefined);
  switch (type) {
    case "number":
    case "integer":
      return numberFor(resolved);
    case "boolean":
      return true;
    case "array": {
      const min = typeof resolved.minItems === "number" ? resolved.minItems : 0;
      const items: Json[] = [];
      while (items.length < min && budget.values > 0) items.push(valueFor(asRecord(resolved.items), root, depth + 1, budget));
      return items;
    }
    case "object":
      return objectFor(resolved, root, depth, budget);
    case "null":
      return null;
    default:
      return stringFor(resolved, budget);
  }
}

function objectFor(schema: Schema, root: Schema, depth: number, budget: Budget): Record<string, Json> {
  const properties = asRecord(schema.properties);
  if (properties === undefined) return {};
  const required = Array.isArray(schema.required) ? schema.required.filter((k): k is string => typeof k === "string") : [];
  const keys = required.length > 0 ? required : Object.keys(properties);
  const out: Record<string, Json> = {};
  for (const key of keys) {
    if (budget.values <= 0) break;
    out[key] = valueFor(asRecord(properties[key]), root, depth + 1, budget);
  }
  return out;
}

/** The schema's own default or lower bound, so a bounded value (a timeout, a count) stays valid. */
function numberFor(schema: Schema): number {
  if (typeof schema.default === "number") return schema.default;
  let value = typeof schema.minimum === "number" ? Math.max(schema.minimum, 1) : 1;
  if (typeof schema.exclusiveMinimum === "number" && value <= schema.exclusiveMinimum) value = Math.floor(schema.exclusiveMinimum) + 1;
  if (typeof schema.maximum === "number" && value > schema.maximum) value = schema.maximum;
  return value;
}

function stringFor(schema: Schema, budget: Budget): string {
  let text = "simulated";
  if (typeof schema.minLength === "number" && text.length < schema.minLength) text = text.padEnd(Math.min(schema.minLength, Math.max(text.length, budget.chars)), "x");
  if (typeof schema.maxLength === "number" && text.length > schema.maxLength) text = text.slice(0, Math.max(0, schema.maxLength));
  budget.chars -= text.length;
  return text;
}

/** `$ref: "#/$defs/Name"` (or `#/definitions/…`, or `#` itself) → the schema it names; the schema itself otherwise. */
function resolve(schema: Schema, root: Schema): Schema {
  const ref = schema.$ref;
  if (typeof ref !== "string" || !ref.startsWith("#")) return schema;
  let target: unknown = root;
  for (const key of ref.slice(1).split("/").filter((k) => k !== "")) target = asRecord(target)?.[key.replaceAll("~1", "/").replaceAll("~0", "~")];
  return asRecord(target) ?? {};
}

/** The branch a union stands for: `anyOf` / `oneOf`'s first non-null one, `allOf`'s branches merged. */
function firstBranch(schema: Schema): Schema | undefined {
  for (const key of ["anyOf", "oneOf"] as const) {
    const branches = Array.isArray(schema[key]) ? (schema[key] as unknown[]).map(asRecord).filter((b) => b !== undefined) : [];
    if (branches.length > 0) return branches.find((b) => b.type !== "null") ?? branches[0];
  }
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0) {
    const merged: Schema = {};
    for (const branch of schema.allOf.map(asRecord)) {
      if (branch === undefined) continue;
      const required = [...(Array.isArray(merged.required) ? merged.required : []), ...(Array.isArray(branch.required) ? branch.required : [])];
      Object.assign(merged, branch, { properties: { ...asRecord(merged.properties), ...asRecord(branch.properties) }, required });
    }
    return merged;
  }
  return undefined;
}

function asRecord(value: unknown): Schema | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Schema) : undefined;
}

function isObject(value: Json): value is Record<string, Json> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isJson(value: unknown): value is Json {
  return value === null || ["string", "number", "boolean", "object"].includes(typeof value);
}
