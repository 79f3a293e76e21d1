/**
 * `include_byok_in_limit` (a key) and `include_byok_in_budgets` (a workspace): whether what the request's own provider
 * keys paid counts against that limit too (README "Bring your own keys"). The hold is committed with the request's
 * billed cost plus, when it counts, its BYOK cost as the bill knows it when it closes.
 */
import type { Bill } from "../accounting/bill.ts";
import type { CreditHold } from "../limits/credits.ts";

export function countingByok(hold: CreditHold, counts: boolean | undefined, bill: Bill): CreditHold {
  if (!counts) return hold;
  return {
    get amount() {
      return hold.amount;
    },
    extend: (extra) => hold.extend(extra),
    commit: (cost) => hold.commit(cost + bill.byokCost),
    release: () => hold.release(),
  };
}
