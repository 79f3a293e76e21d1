/**
 * Keeps file operations inside a container. Commands in the sandbox can create symlinks to anywhere, and the
 * gateway's own process (not the sandbox) performs the file operations, so every path is checked here: no `..`, no
 * absolute path, and symlinks are followed only when their real target stays inside the container root.
 */
import { lstat, readlink, realpath } from "node:fs/promises";
import { join, sep } from "node:path";
import { ContainerError } from "./contract.ts";
import { isMissing } from "./store-unavailable.ts";

const MAX_PATH_BYTES = 4096;
const MAX_NAME_BYTES = 255;

/** The path's segments (`a//./b` → `a`, `b`); a ContainerError saying why for anything that could leave the root. */
export function segmentsOf(path: string): string[] {
  const shown = JSON.stringify(path);
  if (path.includes("\0")) throw new ContainerError(`invalid path ${shown}: it contains a NUL character`);
  if (path.startsWith("/")) throw new ContainerError(`invalid path ${shown}: absolute paths are not allowed; use a path relative to the container root`);
  const segments = path.split("/").filter((segment) => segment !== "" && segment !== ".");
  if (segments.includes("..")) throw new ContainerError(`invalid path ${shown}: ".." is not allowed`);
  if (segments.length === 0) throw new ContainerError(`invalid path ${shown}: it names no file`);
  if (Buffer.byteLength(path) > MAX_PATH_BYTES || segments.some((segment) => Buffer.byteLength(segment) > MAX_NAME_BYTES)) {
    throw new ContainerError(`invalid path ${shown}: too long`);
  }
  return segments;
}

/** True when `path` is `root` or below it (both real paths). */
export function isInside(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

export interface Resolved {
  /** Real path of the deepest existing segment (the root when none exists). */
  existing: string;
  /** Segments below `existing` that do not exist yet (empty when the whole path exists). */
  missing: string[];
}

/**
 * Walks the segments down from the real root, one `lstat` each: a symlink is followed only when its real target
 * is inside the root; a dangling one is refused, since what creating through it would touch cannot be checked.
 */
export async function resolveInside(realRoot: string, segments: string[]): Promise<Resolved> {
  const shown = JSON.stringify(segments.join("/"));
  let current = realRoot;
  for (let i = 0; i < segments.length; i++) {
    const next = join(current, segments[i]!);
    let info;
    try {
      info = await lstat(next);
    } catch (error) {
      if (isMissing(error)) return { existing: current, missing: segments.slice(i) };
      throw error;
    }
    if (info.isSymbolicLink()) {
      const target = await realpath(next).catch(() => undefined);
      if (target === undefined || !isInside(realRoot, target)) throw new ContainerError(`path ${shown}: a symbolic link that leads outside the container or nowhere`);
      current = target;
    } else {
      if (i < segments.length - 1 && !info.isDirectory()) throw new ContainerError(`path ${shown}: ${segments.slice(0, i + 1).join("/")} is not a directory`);
      current = next;
    }
  }
  return { existing: current, missing: [] };
}

/**
 * After opening: the file a descriptor really refers to must be inside the root. Closes the window between the walk
 * above and `open` (a symlink swapped in by a command on another node); Linux only, elsewhere the walk is the check.
 */
export async function assertOpenedInside(realRoot: string, fd: number, path: string): Promise<void> {
  const opened = await readlink(`/proc/self/fd/${fd}`).catch(() => undefined);
  if (opened !== undefined && !isInside(realRoot, opened)) throw new ContainerError(`path ${JSON.stringify(path)} leads outside the container`);
}

/** The container root's real path; a ContainerError when the container's directory is gone. */
export async function realRootOf(root: string): Promise<string> {
  try {
    return await realpath(root);
  } catch (error) {
    if (isMissing(error)) throw new ContainerError("the container no longer exists (deleted or expired)");
    throw error;
  }
}
