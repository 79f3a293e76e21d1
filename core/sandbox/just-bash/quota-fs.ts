/**
 * The container's quotas inside just-bash: a file system wrapper that refuses, before it happens, a write that would
 * take the container past its bytes or entries (the command sees EDQUOT, as on a real disk with quotas). Checking
 * before writing rather than after the command means a runaway script never puts the bytes on disk at all.
 *
 * Usage is measured once per command, at its first write (most commands only read), then tracked as writes succeed;
 * a removal makes the next write measure again instead of guessing what was freed.
 */
import type { BufferEncoding, CpOptions, FileContent, FsStat, IFileSystem, MkdirOptions, RmOptions } from "just-bash";
import { treeUsage, type TreeUsage } from "../tree-usage.ts";

type Encoding = BufferEncoding;
type WriteFileOptions = { encoding?: Encoding };

export class QuotaExceeded extends Error {
  readonly code = "EDQUOT";
}

function contentBytes(content: FileContent, options?: WriteFileOptions | Encoding): number {
  if (typeof content !== "string") return content.byteLength;
  const encoding = typeof options === "string" ? options : options?.encoding;
  return Buffer.byteLength(content, encoding ?? "utf8");
}

export class QuotaFs implements IFileSystem {
  private usage: TreeUsage | undefined;
  // Optional in IFileSystem: offered only when the wrapped file system has them (just-bash falls back otherwise).
  readonly readFileBytes?: IFileSystem["readFileBytes"];
  readonly readdirWithFileTypes?: IFileSystem["readdirWithFileTypes"];

  /** `hostRoot` is the real directory `inner` serves, measured when the quota is first needed. */
  constructor(
    private readonly inner: IFileSystem,
    private readonly hostRoot: string,
    private readonly maxBytes: number,
    private readonly maxEntries: number,
  ) {
    if (inner.readFileBytes) this.readFileBytes = inner.readFileBytes.bind(inner);
    if (inner.readdirWithFileTypes) this.readdirWithFileTypes = inner.readdirWithFileTypes.bind(inner);
  }

  /**
   * Reserves `bytes` and `entries` before the write awaits, so two writes of one pipeline cannot both pass the
   * check; `run` failing gives the reservation back.
   */
  private async reserve<T>(path: string, bytes: number, entries: number, run: () => Promise<T>): Promise<T> {
    const usage = (this.usage ??= await treeUsage(this.hostRoot));
    if (bytes > 0 && usage.bytes + bytes > this.maxBytes) {
      throw new QuotaExceeded(`EDQUOT: disk quota exceeded (container limit ${this.maxBytes} bytes), write '${path}'`);
    }
    if (entries > 0 && usage.entries + entries > this.maxEntries) {
      throw new QuotaExceeded(`EDQUOT: disk quota exceeded (container limit ${this.maxEntries} files), create '${path}'`);
    }
    usage.bytes += bytes;
    usage.entries += entries;
    try {
      return await run();
    } catch (error) {
      usage.bytes -= bytes;
      usage.entries -= entries;
      throw error;
    }
  }

  private async existing(path: string): Promise<FsStat | undefined> {
    return this.inner.lstat(path).catch(() => undefined);
  }

  /** Bytes and entries of the tree at `path` (what copying it adds). */
  private async measure(path: string): Promise<TreeUsage> {
    const info = await this.existing(path);
    if (!info) return { bytes: 0, entries: 0, foreign: 0 };
    if (!info.isDirectory) return { bytes: info.isFile ? info.size : 0, entries: 1, foreign: 0 };
    const total = { bytes: 0, entries: 1, foreign: 0 };
    for (const name of await this.inner.readdir(path)) {
      const child = await this.measure(`${path.replace(/\/$/, "")}/${name}`);
      total.bytes += child.bytes;
      total.entries += child.entries;
    }
    return total;
  }

  private forget(): void {
    this.usage = undefined;
  }

  async writeFile(path: string, content: FileContent, options?: WriteFileOptions | Encoding): Promise<void> {
    const before = await this.existing(path);
    const grow = contentBytes(content, options) - (before?.isFile ? before.size : 0);
    await this.reserve(path, grow, before ? 0 : 1, () => this.inner.writeFile(path, content, options));
  }

  async appendFile(path: string, content: FileContent, options?: WriteFileOptions | Encoding): Promise<void> {
    const before = await this.existing(path);
    await this.reserve(path, contentBytes(content, options), before ? 0 : 1, () => this.inner.appendFile(path, content, options));
  }

  async mkdir(path: string, options?: MkdirOptions): Promise<void> {
    // A recursive mkdir may create several levels; count those missing.
    let missing = 0;
    for (let p = path.replace(/\/+$/, ""); p !== "" && !(await this.inner.exists(p)); p = p.slice(0, p.lastIndexOf("/"))) {
      missing++;
      if (!options?.recursive) break;
    }
    await this.reserve(path, 0, missing, () => this.inner.mkdir(path, options));
  }

  async cp(src: string, dest: string, options?: CpOptions): Promise<void> {
    const copied = await this.measure(src);
    await this.reserve(dest, copied.bytes, copied.entries, () => this.inner.cp(src, dest, options));
    // An overwritten destination freed what it held: measure again rather than guess.
    this.forget();
  }

  async link(existingPath: string, newPath: string): Promise<void> {
    // Another name for the same bytes: one more entry, no more data.
    await this.reserve(newPath, 0, 1, () => this.inner.link(existingPath, newPath));
  }

  async symlink(target: string, linkPath: string): Promise<void> {
    await this.reserve(linkPath, 0, 1, () => this.inner.symlink(target, linkPath));
  }

  async rm(path: string, options?: RmOptions): Promise<void> {
    try {
      await this.inner.rm(path, options);
    } finally {
      this.forget();
    }
  }

  async mv(src: string, dest: string): Promise<void> {
    try {
      await this.inner.mv(src, dest);
    } finally {
      this.forget(); // a replaced destination freed its bytes
    }
  }

  // Reads and metadata changes cannot grow the container: passed through.
  readFile(...args: Parameters<IFileSystem["readFile"]>) {
    return this.inner.readFile(...args);
  }
  readFileBuffer(path: string) {
    return this.inner.readFileBuffer(path);
  }
  exists(path: string) {
    return this.inner.exists(path);
  }
  stat(path: string) {
    return this.inner.stat(path);
  }
  lstat(path: string) {
    return this.inner.lstat(path);
  }
  readdir(path: string) {
    return this.inner.readdir(path);
  }
  resolvePath(base: string, path: string) {
    return this.inner.resolvePath(base, path);
  }
  getAllPaths() {
    return this.inner.getAllPaths();
  }
  chmod(path: string, mode: number) {
    return this.inner.chmod(path, mode);
  }
  readlink(path: string) {
    return this.inner.readlink(path);
  }
  realpath(path: string) {
    return this.inner.realpath(path);
  }
  utimes(path: string, atime: Date, mtime: Date) {
    return this.inner.utimes(path, atime, mtime);
  }
}
