/** The time source the repositories stamp rows with; `deps.clock` fits it, tests pass a fake. */
export interface StoreClock {
  /** Unix milliseconds. */
  now(): number;
}

/** The wall clock. */
export const systemClock: StoreClock = { now: () => Date.now() };
