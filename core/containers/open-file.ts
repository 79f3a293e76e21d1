/** Opening a container file for reading, shared by the files tool and the files API: regular files only, never outside. */
import { constants } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import { ContainerError } from "./contract.ts";
import { assertOpenedInside, resolveInside } from "./safe-path.ts";

/**
 * O_NOFOLLOW: the last segment was resolved by the walk, so a symlink there now was swapped in since.
 * O_NONBLOCK: a FIFO made by a command would otherwise block the open (and this request) forever.
 */
const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

export interface OpenedFile {
  handle: FileHandle;
  bytes: number;
  /** Unix milliseconds (birth time where the file system keeps it, else last modification). */
  createdAtMs: number;
}

/** The regular file at `segments` (checked by `segmentsOf`), open for reading; the caller closes it. */
export async function openRegularFile(realRoot: string, segments: string[]): Promise<OpenedFile> {
  const path = segments.join("/");
  const resolved = await resolveInside(realRoot, segments);
  if (resolved.missing.length > 0) throw new ContainerError(`no such file: ${path}`);
  let handle: FileHandle;
  try {
    handle = await open(resolved.existing, READ_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new ContainerError(`no such file: ${path}`);
    if (code === "ELOOP") throw new ContainerError(`path ${JSON.stringify(path)} leads outside the container`);
    throw error;
  }
  try {
    await assertOpenedInside(realRoot, handle.fd, path);
    const info = await handle.stat();
    if (!info.isFile()) throw new ContainerError(`${path} is not a regular file`);
    return { handle, bytes: info.size, createdAtMs: createdAtMsOf(info) };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** Birth time where the file system records it (ext4, xfs, btrfs), else the last modification time. */
export function createdAtMsOf(info: { birthtimeMs: number; mtimeMs: number }): number {
  return info.birthtimeMs > 0 ? info.birthtimeMs : info.mtimeMs;
}

