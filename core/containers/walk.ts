/**
 * A container's files and directories in lexicographic path order (spec operation 6), optionally resuming strictly
 * after a path. A directory appears as a marker `dir/` before its contents: siblings are sorted by `name/` for
 * directories and `name` for files, so a depth-first walk yields exactly the byte order of the full paths
 * ("a-b" < "a/" < "a/c" < "a0"). Symlinks and special files are skipped; nothing is followed.
 */
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { isMissing } from "./store-unavailable.ts";

export interface WalkEntry {
  /** Container-relative; directory markers end with `/`. */
  path: string;
  kind: "file" | "dir";
  absolute: string;
}

/** UTF-8 byte order, which is code point order (JS `<` compares UTF-16 units, which differs past U+FFFF). */
export function comparePaths(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/** Entries under `root` in path order, strictly after `after` when given (the cursor need not exist). */
export async function* walk(root: string, after?: string): AsyncGenerator<WalkEntry> {
  yield* walkDirectory(root, "", after === undefined ? undefined : { path: after, bytes: Buffer.from(after) });
}

interface Cursor {
  path: string;
  bytes: Buffer;
}

async function* walkDirectory(dir: string, prefix: string, after: Cursor | undefined): AsyncGenerator<WalkEntry> {
  for (const child of await sortedChildren(dir, prefix)) {
    const afterCursor = after === undefined || Buffer.compare(child.key, after.bytes) > 0;
    if (child.entry.kind === "file") {
      if (afterCursor) yield child.entry;
      continue;
    }
    // A directory sorting before the cursor holds only paths before it too, unless the cursor lies inside it.
    if (!afterCursor && !after!.path.startsWith(child.entry.path)) continue;
    if (afterCursor) yield child.entry;
    yield* walkDirectory(child.entry.absolute, child.entry.path, afterCursor ? undefined : after);
  }
}

async function sortedChildren(dir: string, prefix: string): Promise<Array<{ key: Buffer; entry: WalkEntry }>> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    // Removed while we walk (a command, a delete): nothing more there.
    if (isMissing(error)) return [];
    throw error;
  }
  const children: Array<{ key: Buffer; entry: WalkEntry }> = [];
  for (const dirent of entries) {
    const kind = dirent.isDirectory() ? "dir" : dirent.isFile() ? "file" : undefined;
    if (kind === undefined) continue;
    const path = prefix + dirent.name + (kind === "dir" ? "/" : "");
    children.push({ key: Buffer.from(path), entry: { path, kind, absolute: join(dir, dirent.name) } });
  }
  return children.sort((a, b) => Buffer.compare(a.key, b.key));
}
