/** A container opened for one tool call: commands through the sandbox backend, files through files.ts, one at a time. */
import { ContainerError, type ContainerFileInfo, type ContainerHandle, type ExecOptions, type ExecResult } from "./contract.ts";
import type { ContainerContext } from "./context.ts";
import { ContainerFiles } from "./files.ts";
import { toContainerError } from "./fs-errors.ts";
import { renew, type ContainerState } from "./lifecycle.ts";
import { expiresAtMs } from "./meta.ts";
import { measureUsage, quotaMessage } from "./usage.ts";

export class DirectoryContainerHandle implements ContainerHandle {
  private readonly files: ContainerFiles;
  private readonly key: string;

  constructor(
    private readonly ctx: ContainerContext,
    private readonly state: ContainerState,
  ) {
    this.files = new ContainerFiles(state.paths.files, ctx.settings);
    this.key = `${state.meta.workspaceId}/${state.meta.id}`;
  }

  get id(): string {
    return this.state.meta.id;
  }

  get expiresAt(): number {
    return Math.floor(expiresAtMs(this.state.meta) / 1000);
  }

  exec(command: string, options: ExecOptions): Promise<ExecResult> {
    return this.ctx.locks.run(this.key, async () => {
      // Renewed before too, so a command longer than the idle time is not swept from under itself.
      await renew(this.ctx, this.state);
      // The workspace decides whose turn the command waits for: slots are shared fairly between workspaces.
      const result = await this.ctx.backend.exec(this.state.paths.files, command, { ...options, workspace: this.state.meta.workspaceId });
      await renew(this.ctx, this.state);
      // Commands are not refused up front (`rm` must still run in a full container); what they left is checked after.
      const usage = await measureUsage(this.state.paths.files, this.ctx.settings).catch((error: unknown) => toContainerError(error, "measuring the container"));
      if (usage.over) {
        throw new ContainerError(
          `the command ran (exit code ${result.exitCode ?? "none: killed"}) but the container is now over its quota: ${quotaMessage(this.ctx.settings)}; delete files (writes are refused until then)`,
        );
      }
      return result;
    });
  }

  readFile(path: string): Promise<string> {
    return this.locked(`reading ${path}`, () => this.files.read(path));
  }

  writeFile(path: string, content: string): Promise<void> {
    return this.locked(`writing ${path}`, () => this.files.write(path, content));
  }

  deleteFile(path: string): Promise<void> {
    return this.locked(`deleting ${path}`, () => this.files.delete(path));
  }

  renameFile(from: string, to: string): Promise<void> {
    return this.locked(`renaming ${from} to ${to}`, () => this.files.rename(from, to));
  }

  listFiles(filter?: string): Promise<ContainerFileInfo[]> {
    return this.locked("listing files", () => this.files.list(filter));
  }

  private locked<T>(operation: string, run: () => Promise<T>): Promise<T> {
    return this.ctx.locks.run(this.key, () => run().catch((error: unknown) => toContainerError(error, operation)));
  }
}
