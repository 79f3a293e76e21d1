/**
 * The gateway's containers (`deps.containers`): directories under `sandbox.dir`, commands run by a sandbox backend.
 * Tools reach it through `forRequest` (core/pipeline/agent/tool-runner.ts), the files API through `browser`.
 */
import type { Logger } from "pino";
import type { SandboxConfig } from "../config/types.ts";
import type { Clock } from "../deps.ts";
import { ContainerBrowser } from "./browse.ts";
import type { ContainerOwner, ContainerScope, ContainerService } from "./contract.ts";
import type { ContainerBackend, ContainerContext } from "./context.ts";
import { ContainerDirectory } from "./directory.ts";
import { KeyedLock } from "./lock.ts";
import { RequestScope } from "./scope.ts";
import { ContainerSweeper } from "./sweeper.ts";

export interface DirectoryContainerServiceOptions {
  settings: Pick<SandboxConfig, "dir" | "maxBytes" | "maxFiles" | "listScanBound" | "sweepIntervalMs">;
  backend: ContainerBackend;
  clock: Clock;
  logger: Logger;
}

export class DirectoryContainerService implements ContainerService {
  readonly browser: ContainerBrowser;
  readonly sweeper: ContainerSweeper;
  private readonly ctx: ContainerContext;

  constructor(options: DirectoryContainerServiceOptions) {
    const { settings } = options;
    this.ctx = {
      directory: new ContainerDirectory(settings.dir),
      backend: options.backend,
      clock: options.clock,
      settings,
      locks: new KeyedLock(),
      logger: options.logger,
    };
    this.browser = new ContainerBrowser(this.ctx);
    this.sweeper = new ContainerSweeper(this.ctx, settings.sweepIntervalMs);
  }

  /**
   * Prepares the directory and starts sweeping. A directory that cannot be made is logged, not fatal: inference
   * does not need containers, and tools and the files API then answer "unavailable" until it can be used.
   */
  async start(): Promise<void> {
    try {
      await this.ctx.directory.ensure();
    } catch (error) {
      this.ctx.logger.error({ err: error, dir: this.ctx.directory.root }, "containers: the sandbox directory cannot be used");
    }
    this.sweeper.start();
  }

  stop(): void {
    this.sweeper.stop();
  }

  forRequest(owner: ContainerOwner): ContainerScope {
    return new RequestScope(this.ctx, owner);
  }
}
