/**
 * One page of `GET /containers/{id}/files` (spec operation 6). Directory markers are hidden bookkeeping objects: a
 * page passes over at most `scanBound` of them, so a container of a million empty directories cannot make one request
 * walk them all. A page that stops there names its scan position (a marker path) as the cursor, possibly with no
 * files; the next page resumes strictly after it, so every page makes progress.
 */
import { lstat } from "node:fs/promises";
import type { ContainerFileInfo } from "./contract.ts";
import { createdAtMsOf } from "./open-file.ts";
import { isMissing } from "./store-unavailable.ts";
import { walk } from "./walk.ts";

export interface PageRequest {
  /** Resume strictly after this path (a file's, or a marker's from a page that stopped at the bound). */
  after?: string;
  limit: number;
  scanBound: number;
}

export interface FilePage {
  files: ContainerFileInfo[];
  /** The cursor for `after`: the last file's path, or the scan position; null only for an empty last page. */
  lastPath: string | null;
  hasMore: boolean;
}

export async function listPage(root: string, request: PageRequest): Promise<FilePage> {
  const files: ContainerFileInfo[] = [];
  let position: string | undefined;
  let hidden = 0;
  for await (const entry of walk(root, request.after)) {
    if (entry.kind === "dir") {
      // Stop only when there is another marker to pass: has_more then really means more entries exist.
      if (hidden === request.scanBound) return { files, lastPath: position!, hasMore: true };
      hidden++;
      position = entry.path;
      continue;
    }
    if (files.length === request.limit) return { files, lastPath: files.at(-1)!.path, hasMore: true };
    const info = await fileInfo(entry.absolute, entry.path);
    if (!info) continue;
    files.push(info);
    position = entry.path;
  }
  return { files, lastPath: files.at(-1)?.path ?? null, hasMore: false };
}

/** The listing's view of one file; undefined when it vanished or is no longer a regular file. */
export async function fileInfo(absolute: string, path: string): Promise<ContainerFileInfo | undefined> {
  try {
    const info = await lstat(absolute);
    if (!info.isFile()) return undefined;
    return { path, bytes: info.size, createdAt: Math.floor(createdAtMsOf(info) / 1000) };
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}
