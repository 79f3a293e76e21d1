/** What a container holds, for its quotas (`sandbox.max_bytes`, `sandbox.max_files`). */
import { lstat, readdir } from "node:fs/promises";
import { join } from "node:path";
import { isMissing } from "./store-unavailable.ts";

export interface Quota {
  maxBytes: number;
  /** Files, directories and links together: empty directories cost an inode and a listing step too. */
  maxFiles: number;
}

export interface Usage {
  bytes: number;
  entries: number;
  /** True when counting stopped early because a quota is already exceeded (the figures are then lower bounds). */
  over: boolean;
}

/**
 * Counts entries and bytes below `root` as the sandbox backends do (core/sandbox/tree-usage.ts: regular files' sizes,
 * a hard-linked file once, links never followed), but stops as soon as a quota is exceeded so the cost is bounded.
 */
export async function measureUsage(root: string, quota: Quota): Promise<Usage> {
  const usage: Usage = { bytes: 0, entries: 0, over: false };
  const linked = new Set<number>();
  const pending = [root];
  while (pending.length > 0) {
    const dir = pending.pop()!;
    let names: string[];
    try {
      names = await readdir(dir);
    } catch (error) {
      if (isMissing(error)) continue;
      throw error;
    }
    for (const name of names) {
      const info = await lstat(join(dir, name)).catch((error: unknown) => {
        if (isMissing(error)) return undefined;
        throw error;
      });
      if (!info) continue;
      usage.entries++;
      if (info.isDirectory()) pending.push(join(dir, name));
      else if (info.isFile() && !(info.nlink > 1 && linked.has(info.ino))) {
        if (info.nlink > 1) linked.add(info.ino);
        usage.bytes += info.size;
      }
      if (usage.entries > quota.maxFiles || usage.bytes > quota.maxBytes) return { ...usage, over: true };
    }
  }
  return usage;
}

/** The tool-facing explanation of an exceeded quota. */
export function quotaMessage(quota: Quota): string {
  return `the container's quota is ${quota.maxBytes} bytes in at most ${quota.maxFiles} files and directories`;
}
