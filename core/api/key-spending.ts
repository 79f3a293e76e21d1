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
    return Promise.all(
      records.map(async (record) => ({ record, stored: await storedPeriods(deps.store.generations, record.hash, starts), byok: await storedByok(deps, record.hash, starts) })),
    );
  });
  // Synchronously after the read: no flush can run between it and these.
  return rows.map(({ record, stored, byok }) => ({
    record,
    spending: {
      pendingUsage: deps.ledger.pendingUsage(record.hash),
      periods: withPending(stored, deps.ledger, record.hash, starts),
      byok: {
        total: byok.total + deps.ledger.pendingByokSince(record.hash, 0),
        daily: byok.daily + deps.ledger.pendingByokSince(record.hash, starts.daily),
        weekly: byok.weekly + deps.ledger.pendingByokSince(record.hash, starts.weekly),
        monthly: byok.monthly + deps.ledger.pendingByokSince(record.hash, starts.monthly),
      },
    },
  }));
}

/** What BYOK credentials paid for a key, stored: lifetime and per period. */
async function storedByok(deps: Pick<Deps, "store">, keyHash: string, starts: { daily: number; weekly: number; monthly: number }) {
  const g = deps.store.generations;
  const [total, daily, weekly, monthly] = await Promise.all([g.byokCostSince(keyHash, 0), g.byokCostSince(keyHash, starts.daily), g.byokCostSince(keyHash, starts.weekly), g.byokCostSince(keyHash, starts.monthly)]);
  return { total, daily, weekly, monthly };
}

/** One key by hash, with its spending; undefined when it does not exist. */
export async function readOneWithSpending(deps: Pick<Deps, "store" | "ledger" | "clock">, hash: string): Promise<{ record: ApiKeyRecord; spending: KeySpending } | undefined> {
  const [row] = await readWithSpending(deps, async () => {
    const record = await deps.store.keys.findByHash(hash);
    return record ? [record] : [];
  });
  return row;
}
