/**
 * Generation retention per workspace (README "Workspaces": `settings.generation_retention_days`): every sweep deletes
 * the generation records older than their workspace keeps. Every process sweeps (a delete is idempotent), on a timer
 * that never holds the process open; a failed sweep is logged and tried again at the next tick.
 */
import type { Deps } from "../deps.ts";

const DAY_MS = 86_400_000;

export interface RetentionSweeper {
  /** One sweep now; how many records it deleted. */
  sweep(): Promise<number>;
  stop(): void;
}

export function startRetentionSweeper(deps: Pick<Deps, "store" | "clock" | "logger">, intervalMs = 3_600_000): RetentionSweeper {
  let running: Promise<number> | undefined;
  const sweepOnce = async (): Promise<number> => {
    let deleted = 0;
    for (let offset = 0; ; offset += 100) {
      const { workspaces } = await deps.store.workspaces.list({ offset, limit: 100 });
      for (const w of workspaces) {
        const days = w.settings.generation_retention_days;
        if (!days) continue;
        const removed = await deps.store.workspaces.purgeGenerations(w.id, deps.clock.now() - days * DAY_MS);
        if (removed > 0) deps.logger.info({ workspace_id: w.id, deleted: removed, retention_days: days }, "workspaces: old generation records deleted");
        deleted += removed;
      }
      if (workspaces.length < 100) return deleted;
    }
  };
  const sweep = () => (running ??= sweepOnce().finally(() => (running = undefined)));
  const timer = setInterval(() => void sweep().catch((err: unknown) => deps.logger.warn({ err }, "workspaces: retention sweep failed; next try at the next tick")), intervalMs);
  timer.unref?.();
  return { sweep, stop: () => clearInterval(timer) };
}
