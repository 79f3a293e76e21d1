/**
 * The file operations of a container handle (files and apply_patch tools): paths checked by safe-path.ts, writes
 * held to the container's quota. Callers hold the container's lock (lock.ts).
 */
import { constants } from "node:fs";
import { lstat, mkdir, open, rename, unlink } from "node:fs/promises";
import { join } from "node:path";
import { ContainerError, type ContainerFileInfo } from "./contract.ts";
import { fileInfo } from "./listing.ts";
import { openRegularFile } from "./open-file.ts";
import { assertOpenedInside, realRootOf, resolveInside, segmentsOf, type Resolved } from "./safe-path.ts";
import { measureUsage, quotaMessage, type Quota } from "./usage.ts";
import { walk } from "./walk.ts";

/** No O_TRUNC: the file is emptied only after the descriptor is known to be inside the container. */
const WRITE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK;

export class ContainerFiles {
  constructor(
    /** The container's `files/` directory. */
    private readonly root: string,
    private readonly quota: Quota,
  ) {}

  async read(path: string): Promise<string> {
    const segments = segmentsOf(path);
    const { handle } = await openRegularFile(await realRootOf(this.root), segments);
    try {
      return await handle.readFile("utf8");
    } finally {
      await handle.close();
    }
  }

  async write(path: string, content: string): Promise<void> {
    const segments = segmentsOf(path);
    const realRoot = await realRootOf(this.root);
    const resolved = await resolveInside(realRoot, segments);
    const bytes = Buffer.byteLength(content);
    const existing = resolved.missing.length === 0 ? await lstat(resolved.existing) : undefined;
    if (existing?.isDirectory()) throw new ContainerError(`${segments.join("/")} is a directory`);
    // New entries: the missing directories plus the file itself.
    await this.checkQuota(resolved.missing.length, bytes - (existing?.size ?? 0));
    const target = await this.makeParents(realRoot, resolved);
    const handle = await open(target, WRITE_FLAGS, 0o644).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ELOOP") throw new ContainerError(`path ${JSON.stringify(path)} leads outside the container`);
      throw error;
    });
    try {
      await assertOpenedInside(realRoot, handle.fd, path);
      if (!(await handle.stat()).isFile()) throw new ContainerError(`${segments.join("/")} is not a regular file`);
      await handle.truncate(0);
      await handle.writeFile(content);
    } finally {
      await handle.close();
    }
  }

  /** Deletes a file or a link (never what a link points to); directories are refused. */
  async delete(path: string): Promise<void> {
    const segments = segmentsOf(path);
    const target = await this.existingEntry(await realRootOf(this.root), segments);
    if ((await lstat(target)).isDirectory()) throw new ContainerError(`${segments.join("/")} is a directory`);
    await unlink(target);
  }

  async rename(from: string, to: string): Promise<void> {
    const fromSegments = segmentsOf(from);
    const toSegments = segmentsOf(to);
    const realRoot = await realRootOf(this.root);
    const source = await this.existingEntry(realRoot, fromSegments);
    const parent = await resolveInside(realRoot, toSegments.slice(0, -1));
    const name = toSegments.at(-1)!;
    if (parent.missing.length === 0) {
      const existing = await lstat(join(parent.existing, name)).catch(() => undefined);
      if (existing?.isDirectory()) throw new ContainerError(`${toSegments.join("/")} is a directory`);
    }
    // Only the new parent directories can add to the quota; the moved bytes are already counted.
    if (parent.missing.length > 0) await this.checkQuota(parent.missing.length, 0);
    const target = await this.makeParents(realRoot, { existing: parent.existing, missing: [...parent.missing, name] });
    await rename(source, target);
  }

  /**
   * Regular files in path order. `filter`: a glob (`*.py`, `src/**`) when it holds `*?[{`, else a substring of the
   * path.
   */
  async list(filter?: string): Promise<ContainerFileInfo[]> {
    const matches = matcherOf(filter);
    const files: ContainerFileInfo[] = [];
    for await (const entry of walk(await realRootOf(this.root))) {
      if (entry.kind !== "file" || !matches(entry.path)) continue;
      const info = await fileInfo(entry.absolute, entry.path);
      if (info) files.push(info);
    }
    return files;
  }

  private async checkQuota(newEntries: number, addedBytes: number): Promise<void> {
    const usage = await measureUsage(this.root, this.quota);
    if (usage.over || usage.entries + newEntries > this.quota.maxFiles || usage.bytes + addedBytes > this.quota.maxBytes) {
      throw new ContainerError(`quota exceeded: ${quotaMessage(this.quota)}; delete files to make room`);
    }
  }

  /** Creates the missing parent directories one by one (never following anything) and returns the target's path. */
  private async makeParents(realRoot: string, resolved: Resolved): Promise<string> {
    let dir = resolved.existing;
    for (const segment of resolved.missing.slice(0, -1)) {
      dir = join(dir, segment);
      await mkdir(dir).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== "EEXIST") throw error;
      });
      if (!(await lstat(dir)).isDirectory()) throw new ContainerError(`${dir.slice(realRoot.length + 1)} is not a directory`);
    }
    return resolved.missing.length === 0 ? resolved.existing : join(dir, resolved.missing.at(-1)!);
  }

  /** The real path of an existing entry's parent joined with its name: the entry itself is never followed. */
  private async existingEntry(realRoot: string, segments: string[]): Promise<string> {
    const parent = await resolveInside(realRoot, segments.slice(0, -1));
    const path = segments.join("/");
    if (parent.missing.length > 0) throw new ContainerError(`no such file: ${path}`);
    const target = join(parent.existing, segments.at(-1)!);
    await lstat(target).catch(() => {
      throw new ContainerError(`no such file: ${path}`);
    });
    return target;
  }
}

function matcherOf(filter: string | undefined): (path: string) => boolean {
  if (!filter) return () => true;
  if (/[*?[{]/.test(filter)) {
    const glob = new Bun.Glob(filter);
    return (path) => glob.match(path);
  }
  return (path) => path.includes(filter);
}
