/**
 * GCRA (generic cell rate algorithm) arithmetic shared by the memory and Redis rate limiters.
 *
 * State is one number per key: the theoretical arrival time (TAT). Each unit of cost advances it by the emission
 * interval `periodMs / limit`; a request conforms while the advanced TAT stays within `limit` intervals of now.
 * Times are whole microseconds: integer arithmetic keeps "exactly `limit` in a burst" exact, where float
 * milliseconds would drift by rounding after a few thousand steps (and epoch µs stay below 2^53).
 */
import { assertNonNegative, assertPositive } from "./args.ts";
import type { RateLimitResult } from "./kv.ts";

/** The integer parameters of one rate-limit call. */
export interface GcraPlan {
  limit: number;
  /** Emission interval, µs; rounded up so the effective rate never exceeds `limit / periodMs`. */
  intervalUs: number;
  /** How far this call's cost advances the TAT, µs. */
  incrementUs: number;
  /** Burst tolerance, µs: `limit` intervals. */
  toleranceUs: number;
}

/** The outcome of one step, relative to now. */
export interface GcraOutcome {
  allowed: boolean;
  /** TAT minus now after the step (allowed) or as it stands (denied), µs: the time until fully reset. */
  backlogUs: number;
  /** Time until this call would conform, µs (0 when allowed). */
  retryUs: number;
}

/** Validates the arguments and derives the integer plan. */
export function planGcra(limit: number, periodMs: number, cost: number): GcraPlan {
  assertPositive(limit, "limit");
  assertPositive(periodMs, "periodMs");
  assertNonNegative(cost, "cost");
  const intervalUs = Math.max(1, Math.ceil((periodMs * 1000) / limit));
  return {
    limit,
    intervalUs,
    incrementUs: Math.ceil(intervalUs * cost),
    toleranceUs: Math.ceil(intervalUs * limit),
  };
}

/** One GCRA step; the Lua script in `redis-scripts.ts` mirrors this line for line. */
export function stepGcra(plan: GcraPlan, storedTatUs: number | null, nowUs: number): GcraOutcome & { newTatUs: number } {
  const tat = storedTatUs !== null && storedTatUs > nowUs ? storedTatUs : nowUs;
  const newTatUs = tat + plan.incrementUs;
  const allowAt = newTatUs - plan.toleranceUs;
  if (allowAt > nowUs) return { allowed: false, backlogUs: tat - nowUs, retryUs: allowAt - nowUs, newTatUs: tat };
  return { allowed: true, backlogUs: newTatUs - nowUs, retryUs: 0, newTatUs };
}

/**
 * The caller-facing result. A cost above `limit` can never conform; its `retryAfterMs` is then the wait after
 * which it would if the burst allowed it.
 */
export function toRateLimitResult(plan: GcraPlan, outcome: GcraOutcome): RateLimitResult {
  return {
    allowed: outcome.allowed,
    limit: plan.limit,
    remaining: Math.max(0, Math.floor((plan.toleranceUs - outcome.backlogUs) / plan.intervalUs)),
    resetMs: Math.ceil(outcome.backlogUs / 1000),
    retryAfterMs: outcome.allowed ? 0 : Math.max(1, Math.ceil(outcome.retryUs / 1000)),
  };
}
