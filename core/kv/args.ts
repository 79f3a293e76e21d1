/** Argument checks shared by the kv implementations, so memory and Redis reject the same inputs the same way. */

/** Throws unless `value` is a finite number (NaN or Infinity would corrupt counters and budgets). */
export function assertFinite(value: number, name: string): void {
  if (!Number.isFinite(value)) throw new RangeError(`kv: ${name} must be a finite number, got ${value}`);
}

/** Throws unless `value` is finite and > 0. */
export function assertPositive(value: number, name: string): void {
  assertFinite(value, name);
  if (value <= 0) throw new RangeError(`kv: ${name} must be > 0, got ${value}`);
}

/** Throws unless `value` is finite and >= 0. */
export function assertNonNegative(value: number, name: string): void {
  assertFinite(value, name);
  if (value < 0) throw new RangeError(`kv: ${name} must be >= 0, got ${value}`);
}

/** A TTL as whole milliseconds (Redis PX takes integers); rounded up so it never expires early. */
export function ttlToMs(ttlMs: number): number {
  assertPositive(ttlMs, "ttlMs");
  return Math.ceil(ttlMs);
}
