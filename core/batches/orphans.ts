/**
 * Claims of processes that are gone (hardening issue: "batches resume at once after a crash"). A worker id names
 * its process and place (worker-identity.ts); a claim held by a process of this place whose PID no longer exists —
 * a gateway killed and restarted on the same SQLite file or the same machine — is given back at once instead of
 * after its lease. Claims of processes elsewhere wait for their lease (10 s by default).
 */
import type { Deps } from "../deps.ts";
import { isGoneHere } from "./worker-identity.ts";

/** Batches looked at per sweep; the rest on the next one. */
const PER_SWEEP = 100;

/** Gives back the running items of every gone local process; returns how many. */
export async function reclaimOrphans(deps: Pick<Deps, "store" | "logger">, selfId: string, isGone: (workerId: string) => boolean = isGoneHere): Promise<number> {
  let reclaimed = 0;
  for (const batch of await deps.store.batches.byStatus(["in_progress", "cancelling"], PER_SWEEP)) {
    for (const holder of await deps.store.batches.claimHolders(batch.id)) {
      if (holder === selfId || !isGone(holder)) continue;
      const items = await deps.store.batches.releaseClaimsOf(batch.id, holder);
      if (items === 0) continue;
      reclaimed += items;
      deps.logger.info({ batch: batch.id, worker: holder, items }, "batch worker: took back the requests of a process that is gone");
    }
  }
  return reclaimed;
}
