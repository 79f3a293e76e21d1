/**
 * The files API's view of containers (core/api/containers.ts): read-only listing and reading, plus deletion. A
 * container of another workspace, an unknown one and an expired one all read as absent (undefined → 404). Takes no
 * container lock: it never follows a link out (lstat-based walk, checked opens) and must not wait behind a command.
 */
import { ContainerError, type ContainerFileInfo } from "./contract.ts";
import type { ContainerContext } from "./context.ts";
import { isContainerId } from "./ids.ts";
import { isExpired } from "./lifecycle.ts";
import { listPage, type FilePage } from "./listing.ts";
import type { ContainerMeta } from "./meta.ts";
import { openRegularFile, type OpenedFile } from "./open-file.ts";
import { realRootOf, segmentsOf } from "./safe-path.ts";
import { storeFailure } from "./store-unavailable.ts";

export class ContainerBrowser {
  constructor(private readonly ctx: ContainerContext) {}

  /** The workspace's live container; undefined for anything else. Throws SandboxStoreUnavailable when we cannot tell. */
  async find(workspaceId: string, id: string): Promise<ContainerMeta | undefined> {
    if (!isContainerId(id)) return undefined;
    const meta = await this.ctx.directory.readMeta(workspaceId, id);
    return meta && !isExpired(this.ctx, meta) ? meta : undefined;
  }

  async page(workspaceId: string, id: string, request: { after?: string; limit: number }): Promise<FilePage | undefined> {
    if (!(await this.find(workspaceId, id))) return undefined;
    const { files } = this.ctx.directory.paths(workspaceId, id);
    return listPage(files, { ...request, scanBound: this.ctx.settings.listScanBound }).catch(storeFailure);
  }

  async file(workspaceId: string, id: string, path: string): Promise<ContainerFileInfo | undefined> {
    const opened = await this.open(workspaceId, id, path);
    if (!opened) return undefined;
    await opened.handle.close();
    return { path, bytes: opened.bytes, createdAt: Math.floor(opened.createdAtMs / 1000) };
  }

  /** The file open for reading (the caller closes it); undefined when the container or the file is not there. */
  async open(workspaceId: string, id: string, path: string): Promise<OpenedFile | undefined> {
    if (!(await this.find(workspaceId, id))) return undefined;
    let segments: string[];
    try {
      segments = segmentsOf(path);
    } catch {
      return undefined;
    }
    // Only the exact paths the listing shows have ids: `a//b` or `./a` name nothing.
    if (segments.join("/") !== path) return undefined;
    try {
      return await openRegularFile(await realRootOf(this.ctx.directory.paths(workspaceId, id).files), segments);
    } catch (error) {
      // Missing, a directory, a link out of the container: all "no such file" from outside.
      if (error instanceof ContainerError) return undefined;
      return storeFailure(error);
    }
  }

  /**
   * The workspace's live containers in id order, `limit` at most, strictly after the id `after` when given.
   * `hasMore` says ids remain past the page (some may have expired by the time they are asked for).
   */
  async list(workspaceId: string, request: { after?: string; limit: number }): Promise<{ containers: ContainerMeta[]; hasMore: boolean }> {
    const { after } = request;
    const ids = (await this.ctx.directory.names(workspaceId)).filter((name) => isContainerId(name) && (after === undefined || name > after)).sort();
    const containers: ContainerMeta[] = [];
    let next = 0;
    for (; next < ids.length && containers.length < request.limit; next++) {
      const meta = await this.find(workspaceId, ids[next]!);
      if (meta) containers.push(meta);
    }
    return { containers, hasMore: next < ids.length };
  }

  /** Removes the container and its files; false when there was no live container of that id. */
  async delete(workspaceId: string, id: string): Promise<boolean> {
    if (!(await this.find(workspaceId, id))) return false;
    return this.ctx.directory.remove(workspaceId, id);
  }
}
