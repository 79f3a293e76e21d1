/** Row-value conversions shared by the repositories: both dialects must yield JS numbers and booleans. */

/** A numeric column as a JS number; Postgres int8 may arrive as a string, bigint from other drivers. */
export function toNumber(value: number | string | bigint): number {
  const n = typeof value === "number" ? value : Number(value);
  if (!Number.isFinite(n)) throw new TypeError(`store: expected a numeric column, got ${String(value)}`);
  return n;
}

/** A nullable numeric column as a JS number or null. */
export function toNumberOrNull(value: number | string | bigint | null): number | null {
  return value === null ? null : toNumber(value);
}

/** A 0/1 integer column (booleans are integers on both dialects) as a JS boolean. */
export function toBool(value: number | string | boolean): boolean {
  return value === true || Number(value) === 1;
}

/** A JS boolean as the stored 0/1. */
export function fromBool(value: boolean): number {
  return value ? 1 : 0;
}
