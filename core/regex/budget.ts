/**
 * Steps (instruction visits of the automaton, comparisons of the plain-string matcher, characters skipped) a caller
 * allows one or several searches to take in all. A run adds what it used when each `feed` returns, and stops with
 * RegexBudgetError as soon as a search would go past it: nothing holds the event loop longer than the budget says.
 */
export class StepBudget {
  used = 0;
  constructor(readonly limit: number) {}
}

/** A search went past its step budget; `limit` is that budget. */
export class RegexBudgetError extends Error {
  override readonly name = "RegexBudgetError";
  constructor(readonly limit: number) {
    super(`search exceeded its step budget of ${limit} steps`);
  }
}
