/**
 * Bytes and entries under a directory, as the container quotas count them: regular files' sizes (a file with several
 * hard links once), every file, directory and link as one entry, symbolic links never followed (a link to /usr must
 * not make a container look full, nor let a walk leave the container).
 */
import { lstat, readdir } from "node:fs/promises";
import { join } from "node:path";

export interface TreeUsage {
  bytes: number;
  entries: number;
  /** Entries not owned by `owner` (when given): files the sandbox user could not change. */
  foreign: number;
}

export async function treeUsage(root: string, owner?: number): Promise<TreeUsage> {
  const usage: TreeUsage = { bytes: 0, entries: 0, foreign: 0 };
  const seenInodes = new Set<number>();
  const pending = [root];
  for (let dir = pending.pop(); dir !== undefined; dir = pending.pop()) {
    let names: string[];
    try {
      names = await readdir(dir);
    } catch {
      continue; // removed meanwhile, or unreadable: nothing to count
    }
    for (const name of names) {
      const path = join(dir, name);
      const info = await lstat(path).catch(() => undefined);
      if (!info) continue;
      usage.entries++;
      if (owner !== undefined && info.uid !== owner) usage.foreign++;
      if (info.isDirectory()) pending.push(path);
      else if (info.isFile()) {
        if (info.nlink > 1) {
          if (seenInodes.has(info.ino)) continue;
          seenInodes.add(info.ino);
        }
        usage.bytes += info.size;
      }
    }
  }
  return usage;
}
