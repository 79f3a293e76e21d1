/**
 * Watches a container's size while a bwrap command runs, and calls `onExceeded` once it passes a quota. RLIMIT_FSIZE
 * stops any single file at the quota, but many files could still fill the disk between two looks: the walk repeats
 * every PERIOD_MS after the previous one ends, so its cost stays a fraction of the command's time however large the
 * container is.
 */
import { treeUsage, type TreeUsage } from "../tree-usage.ts";

const PERIOD_MS = 100;

export interface Quota {
  maxBytes: number;
  maxEntries: number;
}

export function overQuota(usage: TreeUsage, quota: Quota): string | undefined {
  if (usage.bytes > quota.maxBytes) return `${usage.bytes} bytes, over the container's quota of ${quota.maxBytes}`;
  if (usage.entries > quota.maxEntries) return `${usage.entries} files, over the container's quota of ${quota.maxEntries}`;
  return undefined;
}

/** Starts watching; the returned function stops it. */
export function watchQuota(root: string, quota: Quota, onExceeded: (why: string) => void): () => void {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const look = async () => {
    const why = overQuota(await treeUsage(root), quota);
    if (stopped) return;
    if (why) onExceeded(why);
    else timer = setTimeout(look, PERIOD_MS);
  };
  timer = setTimeout(look, PERIOD_MS);
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
