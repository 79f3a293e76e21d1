/**
 * Removes expired containers and their files (`sleep_after_seconds` after their last use), at start and every
 * `sandbox.sweep_interval_ms`. Every node may sweep the shared directory: removal renames first, so two sweepers
 * never both remove, and the metadata is read again right before, so a container renewed since is kept.
 */
import { readFile, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import type { ContainerContext } from "./context.ts";
import { TRASH_PREFIX } from "./directory.ts";
import { isContainerId } from "./ids.ts";
import { isExpired } from "./lifecycle.ts";
import { parseMeta } from "./meta.ts";

/** A container directory without readable metadata this old is a crash's leftover (creation takes milliseconds). */
const ORPHAN_GRACE_MS = 60 * 60 * 1000;

export class ContainerSweeper {
  private timer: ReturnType<typeof setInterval> | undefined;
  private running: Promise<number> | undefined;

  constructor(
    private readonly ctx: ContainerContext,
    private readonly intervalMs: number,
  ) {}

  start(): void {
    void this.sweep();
    this.timer = setInterval(() => void this.sweep(), this.intervalMs);
    // A pending sweep must not keep a process (a CLI, a test) alive.
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** One pass; resolves with the number of containers removed (a pass already running is joined, not doubled). */
  sweep(): Promise<number> {
    this.running ??= this.pass()
      .catch((error: unknown) => {
        this.ctx.logger.warn({ err: error }, "containers: sweep failed");
        return 0;
      })
      .finally(() => (this.running = undefined));
    return this.running;
  }

  private async pass(): Promise<number> {
    let removed = 0;
    for await (const { workspaceDir, name } of this.ctx.directory.entries()) {
      // One container that cannot be removed (permissions) must not stop the others from going.
      if (await this.sweepEntry(workspaceDir, name).catch((error: unknown) => this.ctx.logger.warn({ err: error, name }, "containers: could not remove"))) removed++;
    }
    if (removed > 0) this.ctx.logger.info({ removed }, "containers: expired containers removed");
    return removed;
  }

  /** True when it removed a container. */
  private async sweepEntry(workspaceDir: string, name: string): Promise<boolean> {
    const dir = join(workspaceDir, name);
    if (name.startsWith(TRASH_PREFIX)) {
      // A removal interrupted after its rename.
      await rm(dir, { recursive: true, force: true });
      return false;
    }
    return isContainerId(name) && (await this.expired(dir)) && (await this.ctx.directory.removeEntry(workspaceDir, name));
  }

  private async expired(dir: string): Promise<boolean> {
    const meta = parseMeta(await readFile(join(dir, "meta.json"), "utf8").catch(() => ""));
    if (meta) return isExpired(this.ctx, meta);
    const info = await stat(dir).catch(() => undefined);
    return info !== undefined && this.ctx.clock.now() - info.mtimeMs > ORPHAN_GRACE_MS;
  }
}
