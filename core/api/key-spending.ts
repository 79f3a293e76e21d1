/**
 * Reads keys together with their spending so the two agree: the records (lifetime `usage`), the stored generations
 * of the current day, week and month, then the ledger's unflushed part, with no ledger flush landing in between
 * (one would otherwise be counted twice, or not at all).
 */
import { periodStarts, storedPeriods, withPending } from "../accounting/usage-periods.ts";
import type { Deps } from "../deps.ts";
import type { ApiKeyRecord } from "../store/types.ts";
import type { KeySpending } from "./key-view.ts";

export async function readWithSpending(
  deps: Pick<Deps, "store" | "ledger" | "clock">,
  read: () => Promise<readonly ApiKeyRecord[]>,
): Promise<Array<{ record: ApiKeyRecord; spending: KeySpending }>> {
  const starts = periodStarts(deps.clock.now());
  const rows = await deps.ledger.readConsistently(async () => {
    const records = await read();
    return Promise.all(records.map(async (record) => ({ record, stored: await storedPeriods(deps.store.generations, record.hash, starts) })));
  });
  // Synchronously after the read: no flush can run between it and these.
  return rows.map(({ record, stored }) => ({
    record,
    spending: { pendingUsage: deps.ledger.pendingUsage(record.hash), periods: withPending(stored, deps.ledger, record.hash, starts) },
  }));
}

/** One key by hash, with its spending; undefined when it does not exist. */
export async function readOneWithSpending(deps: Pick<Deps, "store" | "ledger" | "clock">, hash: string): Promise<{ record: ApiKeyRecord; spending: KeySpending } | undefined> {
  const [row] = await readWithSpending(deps, async () => {
    const record = await deps.store.keys.findByHash(hash);
    return record ? [record] : [];
  });
  return row;
}
