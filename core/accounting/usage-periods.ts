/**
 * A key's spending in the current UTC day, week (from Monday) and month (the peer's `usage_daily` / `_weekly` /
 * `_monthly`), from the same ledger as its lifetime `usage`: the stored generations of the period plus what this
 * process has not flushed yet. Periods start where credit windows do (`core/limits/windows.ts`).
 */
import { windowOf } from "../limits/windows.ts";
import type { GenerationRepo } from "../store/types/generations.ts";
import type { UsageLedger } from "./ledger.ts";

/** USD spent in each period, unrounded. */
export interface UsagePeriods {
  daily: number;
  weekly: number;
  monthly: number;
}

/** Where each period started at `now` (Unix ms). */
export function periodStarts(now: number): UsagePeriods {
  return { daily: windowOf("daily", now).start, weekly: windowOf("weekly", now).start, monthly: windowOf("monthly", now).start };
}

/** The stored part: call inside `ledger.readConsistently` with the other reads it must agree with. */
export async function storedPeriods(generations: Pick<GenerationRepo, "costSince">, keyHash: string, starts: UsagePeriods): Promise<UsagePeriods> {
  const [daily, weekly, monthly] = await Promise.all([
    generations.costSince(keyHash, starts.daily),
    generations.costSince(keyHash, starts.weekly),
    generations.costSince(keyHash, starts.monthly),
  ]);
  return { daily, weekly, monthly };
}

/** Adds the unflushed part; call right after the consistent read, before anything else awaits. */
export function withPending(stored: UsagePeriods, ledger: Pick<UsageLedger, "pendingUsageSince">, keyHash: string, starts: UsagePeriods): UsagePeriods {
  return {
    daily: stored.daily + ledger.pendingUsageSince(keyHash, starts.daily),
    weekly: stored.weekly + ledger.pendingUsageSince(keyHash, starts.weekly),
    monthly: stored.monthly + ledger.pendingUsageSince(keyHash, starts.monthly),
  };
}
