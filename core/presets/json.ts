/** JSON object helpers for the body-level preset code, which works on request bodies before they are validated. */

/** A JSON object. */
export type Json = Record<string, unknown>;

/** True for a plain (non-array, non-null) object. */
export function isRecord(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Copies the listed keys that are present (not undefined) from `source` into `target`. */
export function copyKeys(target: Json, source: Json, keys: readonly string[]): void {
  for (const key of keys) if (source[key] !== undefined) target[key] = source[key];
}
