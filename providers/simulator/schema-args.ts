/** Tool-call arguments generated from a tool's JSON schema, so simulated calls validate against it. */

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

/**
 * Fills an object schema: the `required` properties, or every property when none is required. Per property:
 * `const` or the first `enum` value when given, else by type: string → "simulated", number/integer → its `default`,
 * else its `minimum` (at least 1), else 1, boolean → true, array → `minItems` items (none by default), object → {},
 * null → null (a type list uses its first non-null type).
 */
export function argumentsFromSchema(schema: Record<string, unknown> | undefined): Record<string, Json> {
  const properties = asRecord(schema?.properties);
  if (properties === undefined) return {};
  const required = Array.isArray(schema?.required) ? schema.required.filter((k): k is string => typeof k === "string") : [];
  const keys = required.length > 0 ? required : Object.keys(properties);
  const out: Record<string, Json> = {};
  for (const key of keys) out[key] = valueFor(asRecord(properties[key]));
  return out;
}

function valueFor(schema: Record<string, unknown> | undefined): Json {
  if (schema === undefined) return "simulated";
  if ("const" in schema && isJson(schema.const)) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0 && isJson(schema.enum[0])) return schema.enum[0];
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const type = types.find((t) => t !== "null") ?? types[0];
  switch (type) {
    case "number":
    case "integer":
      // The schema's own default or lower bound, so a bounded argument (a timeout, a count) stays valid.
      return typeof schema.default === "number" ? schema.default : typeof schema.minimum === "number" ? Math.max(schema.minimum, 1) : 1;
    case "boolean":
      return true;
    case "array": {
      const min = typeof schema.minItems === "number" ? schema.minItems : 0;
      return Array.from({ length: min }, () => valueFor(asRecord(schema.items)));
    }
    case "object":
      return {};
    case "null":
      return null;
    default:
      return "simulated";
  }
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function isJson(value: unknown): value is Json {
  return value === null || ["string", "number", "boolean", "object"].includes(typeof value);
}
