/**
 * The batch discount (config `batches.discount`; reference b7 "priced at about 50% of sync").
 *
 * Applied where the charge is recorded: batch items run with a `deps` whose usage ledger records each generation
 * at the discounted cost and whose credit holds commit the discounted cost, so the generation record, the key's
 * usage, its credit window and the item's result body (`usage.cost`) all agree. The pipeline itself is untouched:
 * the accounting stage prices at list price and hands the amount to `ctx.deps.ledger` and `ctx.credit`, which are
 * these views for batch items. (Credit reservations stay at the list-price worst case: conservative, and released
 * at commit anyway.)
 */
import type { Deps } from "../deps.ts";
import type { CreditHold, CreditLedger, ReserveResult } from "../limits/credits.ts";
import type { Cost } from "../model/usage.ts";
import type { GenerationRecord } from "../store/types/generations.ts";
import { roundUsd } from "../accounting/money.ts";


/** A USD amount after the discount. */
export function discounted(amount: number, discount: number): number {
  return roundUsd(amount * (1 - discount));
}

/** A response cost after the discount; `upstream` is what the provider itself charged, so it is left as is. */
export function discountedCost(cost: Cost, discount: number): Cost {
  return { total: discounted(cost.total, discount), input: discounted(cost.input, discount), output: discounted(cost.output, discount), upstream: cost.upstream };
}

/**
 * A view of `target` with one method replaced; every other member is the real object's, bound to it. A proxy rather
 * than a subclass or a copy: the ledgers' queues, pending totals and caches must stay the one shared instance.
 */
function overriding<T extends object>(target: T, name: keyof T & string, replacement: unknown): T {
  return new Proxy(target, {
    get(real, property) {
      if (property === name) return replacement;
      const value: unknown = Reflect.get(real, property, real);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(real) : value;
    },
  });
}

/** A credit hold that commits the discounted cost. */
function discountedHold(hold: CreditHold, discount: number): CreditHold {
  return {
    get amount() {
      return hold.amount;
    },
    // Held at the full price: the worst case of another turn is not discounted until it is settled.
    extend: (extra) => hold.extend(extra),
    commit: (cost) => hold.commit(discounted(cost, discount)),
    release: () => hold.release(),
  };
}

/** `deps` whose ledger records, and whose credit holds commit, the discounted cost; everything else is real. */
export function discountedDeps(deps: Deps, discount: number): Deps {
  if (discount <= 0) return deps;
  const ledger = deps.ledger;
  const record = (generation: GenerationRecord): void => ledger.record({ ...generation, cost: discounted(generation.cost, discount) });
  const credits = deps.credits;
  const reserve = async (...args: Parameters<CreditLedger["reserve"]>): Promise<ReserveResult> => {
    const result = await credits.reserve(...args);
    return result.granted ? { granted: true, hold: discountedHold(result.hold, discount) } : result;
  };
  return { ...deps, ledger: overriding(ledger, "record", record), credits: overriding(credits, "reserve", reserve) };
}
