/**
 * JSON Schema validation of healed output, with Ajv. TypeBox's checkers only accept TypeBox schemas (they dispatch
 * on its `Kind` symbol), not the plain JSON Schema a client sends in `response_format`, so a real validator is
 * needed; Ajv is the maintained, standard one (drafts 06/07 and the 2019/2020 keywords clients use: `$defs`,
 * `$ref`, `anyOf`, `enum`, `const`, formats aside). Compiling costs far more than validating, so validators are
 * kept per schema text (a client usually sends the same schema on every request).
 *
 * The schema is the client's, and so are its `pattern` and `patternProperties` regular expressions: Ajv runs them on
 * the SDK's linear-time engine (ECMAScript dialect, the `u` flag as Ajv gives it), never on the backtracking RegExp,
 * and one validation may take at most `VALIDATION_STEP_BUDGET` steps over all of them. A pattern the engine refuses
 * (lookaround, backreferences, one too large), or a validation past its budget, leaves the reply unchecked against
 * the schema, and says so through `skipped` (the plugin's warning).
 */
import { Ajv, type ValidateFunction } from "ajv";
import { linearRegExp, PatternError, RegexBudgetError, StepBudget, type LinearRegExp } from "../../core/sdk/index.ts";
import type { SchemaCheck } from "./heal.ts";

const MAX_CACHED = 64;
/** Instructions one schema pattern may compile to (repetitions unrolled). */
export const MAX_PATTERN_PROGRAM = 2_000;
/** Steps the patterns may take over one validation (about a tenth of a second at worst). */
export const VALIDATION_STEP_BUDGET = 10_000_000;

/** A pattern of the schema that the linear-time engine refuses. */
class UnsupportedPattern extends Error {
  constructor(
    readonly pattern: string,
    readonly reason: string,
  ) {
    super(`pattern ${JSON.stringify(pattern)}: ${reason}`);
  }
}

/** The budget of the validation running now (validation is synchronous: one runs at a time). */
let running: StepBudget | undefined;

/** Ajv's `code.regExp`: `pattern` and `patternProperties` compiled on the linear-time engine. */
const linearEngine = Object.assign(
  (pattern: string, flags: string) => {
    let regex: LinearRegExp;
    try {
      regex = linearRegExp(pattern, flags, { maxProgram: MAX_PATTERN_PROGRAM });
    } catch (error) {
      if (error instanceof PatternError) throw new UnsupportedPattern(pattern, error.message);
      throw error;
    }
    // `toString` is what Ajv dedupes compiled patterns by.
    return { test: (text: string) => regex.test(text, running), toString: () => regex.toString() };
  },
  { code: "linearRegExp" },
);

// `strict: false`: clients' schemas carry keywords Ajv does not know (`strict` of OpenAI, vendor extensions).
// `validateFormats: false`: `format` is a hint to the model, not something we can check for every format name.
const ajv = new Ajv({ strict: false, allErrors: false, validateSchema: false, validateFormats: false, addUsedSchema: false, code: { regExp: linearEngine } });
/** Schema text → its validator and the object Ajv keeps it under (removed from Ajv's own cache on eviction). */
const cache = new Map<string, { validate: ValidateFunction; body: Record<string, unknown> }>();

/**
 * A check for `schema`, or undefined when Ajv cannot compile it (then the output is only checked to be JSON).
 * `skipped` hears why the schema was not checked when the reason is one the client can act on: a pattern the engine
 * refuses, or patterns that took more than the validation's budget (then the check lets the value pass).
 */
export function schemaCheck(schema: Record<string, unknown>, skipped?: (reason: string) => void): SchemaCheck | undefined {
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
    } catch (error) {
      ajv.removeSchema(body);
      if (error instanceof UnsupportedPattern) skipped?.(`The reply was not checked against the schema: its ${error.message}`);
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
    running = new StepBudget(VALIDATION_STEP_BUDGET);
    let valid: boolean;
    try {
      valid = compiled(value) as boolean;
    } catch (error) {
      if (!(error instanceof RegexBudgetError)) throw error;
      skipped?.(`The reply was not checked against the schema: its patterns took more than ${VALIDATION_STEP_BUDGET.toLocaleString("en-US")} steps`);
      return undefined;
    } finally {
      running = undefined;
    }
    if (valid) return undefined;
    const error = compiled.errors?.[0];
    if (!error) return "invalid";
    return `${error.instancePath === "" ? "(root)" : error.instancePath} ${error.message ?? "is invalid"}`;
  };
}
