/**
 * JSON Schema validation of healed output, with Ajv. TypeBox's checkers only accept TypeBox schemas (they dispatch
 * on its `Kind` symbol), not the plain JSON Schema a client sends in `response_format`, so a real validator is
 * needed; Ajv is the maintained, standard one (drafts 06/07 and the 2019/2020 keywords clients use: `$defs`,
 * `$ref`, `anyOf`, `enum`, `const`, formats aside). Compiling costs far more than validating, so validators are
 * kept per schema text (a client usually sends the same schema on every request).
 */
import { Ajv, type ValidateFunction } from "ajv";
import type { SchemaCheck } from "./heal.ts";

const MAX_CACHED = 64;

// `strict: false`: clients' schemas carry keywords Ajv does not know (`strict` of OpenAI, vendor extensions).
// `validateFormats: false`: `format` is a hint to the model, not something we can check for every format name.
const ajv = new Ajv({ strict: false, allErrors: false, validateSchema: false, validateFormats: false, addUsedSchema: false });
/** Schema text → its validator and the object Ajv keeps it under (removed from Ajv's own cache on eviction). */
const cache = new Map<string, { validate: ValidateFunction; body: Record<string, unknown> }>();

/** A check for `schema`, or undefined when Ajv cannot compile it (then the output is only checked to be JSON). */
export function schemaCheck(schema: Record<string, unknown>): SchemaCheck | undefined {
  const key = JSON.stringify(schema);
  let entry = cache.get(key);
  if (entry) {
    // Most recently used last: the oldest entry is the first to go.
    cache.delete(key);
    cache.set(key, entry);
  } else {
    // `$schema` names a meta-schema Ajv would want registered; the keywords below it are what matter here.
    const { $schema: _ignored, ...body } = schema;
    try {
      entry = { validate: ajv.compile(body), body };
    } catch {
      ajv.removeSchema(body);
      return undefined;
    }
    cache.set(key, entry);
    if (cache.size > MAX_CACHED) {
      const [oldest, evicted] = cache.entries().next().value!;
      cache.delete(oldest);
      ajv.removeSchema(evicted.body);
    }
  }
  const compiled = entry.validate;
  return (value) => {
    if (compiled(value)) return undefined;
    const error = compiled.errors?.[0];
    if (!error) return "invalid";
    return `${error.instancePath === "" ? "(root)" : error.instancePath} ${error.message ?? "is invalid"}`;
  };
}
