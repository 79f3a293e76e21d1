/** The reservation rule shared by the memory and Redis kv. */

/**
 * Slack on the budget comparison, in USD: sums of float prices land a hair above an exactly-reached limit
 * (0.1 + 0.2 > 0.3), which must still count as reaching it. A nano-dollar is far below any real price.
 */
export const BUDGET_EPSILON = 1e-9;

/** Whether a reservation of `amount` fits: `spent + reserved + amount <= limit`, within {@link BUDGET_EPSILON}. */
export function fitsBudget(spent: number, reserved: number, amount: number, limit: number): boolean {
  return spent + reserved + amount <= limit + BUDGET_EPSILON;
}
