/**
 * Integer query parameters (`offset`, `limit`). Elysia's numeric coercion reports a range failure without the
 * parameter's name, and a fraction or a number past 2^53 would reach the database as LIMIT/OFFSET and fail there
 * (500). So the schema takes the raw string and the value is checked here: a 400 that names the parameter.
 */
import { t } from "elysia";
import { errors } from "../errors.ts";

/** Schema of an optional integer query parameter, checked by `integerParam` (typed for the OpenAPI docs). */
export const IntegerQuery = (description: string) => t.Optional(t.String({ format: "integer", description }));

/** The parameter's value, `fallback` when absent; 400 naming it when outside [min, max]. */
export function integerParam(name: string, raw: string | undefined, range: { min: number; max: number; fallback: number }): number {
  if (raw === undefined) return range.fallback;
  const value = /^[0-9]{1,16}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < range.min || value > range.max) {
    throw errors.invalid(`${name}: must be an integer from ${range.min} to ${range.max}`, { param: name });
  }
  return value;
}
