/**
 * Where containers live: `<dir>/<workspace>/<container id>/files/` (what commands see as their working directory)
 * and `<dir>/<workspace>/<container id>/meta.json` (owner and idle timer). Everything is a file so that files survive
 * a restart and, with `dir` on a shared file system (NFS), every node of a deployment sees every container.
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { parseMeta, serializeMeta, type ContainerMeta } from "./meta.ts";
import { isMissing, SandboxStoreUnavailable, storeFailure } from "./store-unavailable.ts";

/**
 * Written at start-up. Its absence while running means the directory is not the one we started with (an unmounted
 * share shows an empty mount point): the files API then answers 503 instead of claiming every container is gone.
 */
const MARKER = ".gateway-containers";
/** Removal renames a container here first, so it vanishes at once and a half-removed one is never served. */
export const TRASH_PREFIX = ".trash-";
const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

export interface ContainerPaths {
  dir: string;
  files: string;
  meta: string;
}

export class ContainerDirectory {
  readonly root: string;

  constructor(dir: string) {
    this.root = resolve(dir);
  }

  /** Creates the directory and its marker; idempotent (every node runs it at start). */
  async ensure(): Promise<void> {
    await mkdir(this.root, { recursive: true });
    await writeFile(join(this.root, MARKER), "containers of the inference gateway (README \"Containers\")\n");
  }

  async available(): Promise<boolean> {
    try {
      await stat(join(this.root, MARKER));
      return true;
    } catch {
      return false;
    }
  }

  workspaceDir(workspaceId: string): string {
    return join(this.root, workspaceDirName(workspaceId));
  }

  paths(workspaceId: string, id: string): ContainerPaths {
    const dir = join(this.workspaceDir(workspaceId), id);
    return { dir, files: join(dir, "files"), meta: join(dir, "meta.json") };
  }

  /** The container's metadata; undefined when it does not exist. Throws SandboxStoreUnavailable when we cannot tell. */
  async readMeta(workspaceId: string, id: string): Promise<ContainerMeta | undefined> {
    let text: string;
    try {
      text = await readFile(this.paths(workspaceId, id).meta, "utf8");
    } catch (error) {
      if (!isMissing(error)) storeFailure(error);
      if (!(await this.available())) throw new SandboxStoreUnavailable(error);
      return undefined;
    }
    const meta = parseMeta(text);
    // A directory copied or moved by hand into another workspace does not change owner.
    return meta && meta.id === id && meta.workspaceId === workspaceId ? meta : undefined;
  }

  /** Replaces the metadata atomically (write, then rename); false when the container no longer exists. */
  async writeMeta(meta: ContainerMeta): Promise<boolean> {
    const { meta: path } = this.paths(meta.workspaceId, meta.id);
    const temporary = `${path}.tmp-${randomBytes(6).toString("hex")}`;
    try {
      await writeFile(temporary, serializeMeta(meta));
      await rename(temporary, path);
      return true;
    } catch (error) {
      if (isMissing(error)) return false;
      await rm(temporary, { force: true }).catch(() => undefined);
      return storeFailure(error);
    }
  }

  /** Creates the container's directories and metadata (an existing one keeps its files). */
  async create(meta: ContainerMeta): Promise<void> {
    // Never recreate a vanished store: on an unmounted share that would write to the bare mount point of one node.
    if (!(await this.available())) throw new SandboxStoreUnavailable(new Error(`${this.root} is not the container directory made at start`));
    try {
      await mkdir(this.paths(meta.workspaceId, meta.id).files, { recursive: true });
    } catch (error) {
      storeFailure(error);
    }
    if (!(await this.writeMeta(meta))) throw new SandboxStoreUnavailable(new Error(`container ${meta.id} vanished while being created`));
  }

  /** Removes the container and its files; false when it did not exist. */
  remove(workspaceId: string, id: string): Promise<boolean> {
    return this.removeEntry(this.workspaceDir(workspaceId), id);
  }

  /** Removes `<workspaceDir>/<name>` (the sweeper knows containers by directory, not by owner). */
  async removeEntry(workspaceDir: string, name: string): Promise<boolean> {
    const dir = join(workspaceDir, name);
    const trash = join(workspaceDir, `${TRASH_PREFIX}${name}-${randomBytes(6).toString("hex")}`);
    try {
      await rename(dir, trash);
    } catch (error) {
      if (isMissing(error)) return false;
      storeFailure(error);
    }
    await rm(trash, { recursive: true, force: true });
    return true;
  }

  /**
   * The names of a workspace's entries (containers, and trash the caller skips by their id grammar). Throws
   * SandboxStoreUnavailable when the container directory itself is gone (a workspace without containers has none).
   */
  async names(workspaceId: string): Promise<string[]> {
    if (!(await this.available())) throw new SandboxStoreUnavailable(new Error(`${this.root} is not the container directory made at start`));
    try {
      return await listDirectories(this.workspaceDir(workspaceId));
    } catch (error) {
      return storeFailure(error);
    }
  }

  /** Every entry of every workspace directory (containers and leftover trash), for the sweeper. */
  async *entries(): AsyncGenerator<{ workspaceDir: string; name: string }> {
    for (const workspace of await listDirectories(this.root)) {
      const workspaceDir = join(this.root, workspace);
      for (const name of await listDirectories(workspaceDir)) yield { workspaceDir, name };
    }
  }
}

/** Workspace ids are UUIDs; anything else is hashed rather than trusted as a directory name. */
function workspaceDirName(workspaceId: string): string {
  return SAFE_NAME.test(workspaceId) ? workspaceId : "ws_" + createHash("sha256").update(workspaceId).digest("hex");
}

async function listDirectories(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir, { withFileTypes: true })).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
  } catch (error) {
    if (isMissing(error)) return [];
    throw error;
  }
}
