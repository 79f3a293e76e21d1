/**
 * The default backend: just-bash, a bash simulated in TypeScript over the container's directory. No host binary
 * runs, no network exists, and every command runs in a pooled Bun Worker so the gateway's event loop never waits
 * on a script. Commands wait for a slot (fair-slots.ts) before they reach the pool, which has a worker per slot: the
 * pool's own queue stays empty and workspaces are served fairly.
 */
import { dirname, join } from "node:path";
import type { ExecResult, SandboxExecOptions } from "../../containers/contract.ts";
import type { SandboxBackend } from "../backend.ts";
import { FairSlots } from "../fair-slots.ts";
import type { ResolvedSandboxSettings } from "../settings.ts";
import { WorkerPool } from "./worker-pool.ts";

/**
 * Where the worker's code is. Built, the worker is an entrypoint of its own (package.json `start` and `build:binary`
 * name it) under its path from the build root, and `import.meta.url` is the bundle's or the binary's, not this
 * file's: inside a `--compile` binary it is embedded as the `.ts` path, in `npm start`'s bundle it is a `.js` file
 * beside `dist/server.js`. From source it sits next to this file.
 */
const WORKER_FROM_BUILD_ROOT = "core/sandbox/just-bash/just-bash-worker";

export function workerSpecifier(main: string = Bun.main, here: string = import.meta.url): string {
  const compiled = main.includes("/$bunfs/") || main.includes("~BUN");
  if (compiled) return join(dirname(main), `${WORKER_FROM_BUILD_ROOT}.ts`);
  if (here.endsWith(".ts")) return new URL("./just-bash-worker.ts", here).href;
  return join(dirname(main), `${WORKER_FROM_BUILD_ROOT}.js`);
}

/** A worker for the pool. `env: {}`: a worker otherwise starts with a copy of the gateway's environment (secrets). */
export function spawnJustBashWorker(): Worker {
  return new Worker(workerSpecifier(), { env: {}, name: "just-bash" });
}

export class JustBashBackend implements SandboxBackend {
  readonly name = "just-bash" as const;
  private readonly pool: WorkerPool;
  private readonly slots: FairSlots;

  constructor(private readonly settings: ResolvedSandboxSettings, spawn: () => Worker = spawnJustBashWorker) {
    this.slots = new FairSlots(settings.workers, settings.queueTimeoutMs);
    this.pool = new WorkerPool({ size: this.slots.capacity, memoryBudgetBytes: settings.maxMemoryBytes, spawn });
  }

  async exec(root: string, command: string, options: SandboxExecOptions): Promise<ExecResult> {
    const { maxFsBytes, maxFiles, tmpBytes } = this.settings;
    const limits = { timeoutMs: options.timeoutMs, maxOutputBytes: options.maxOutputBytes, maxFsBytes, maxFiles, tmpBytes };
    const lease = await this.slots.acquire({ tenant: options.workspace ?? "", signal: options.signal });
    try {
      return await this.pool.run(root, command, limits, options.signal);
    } finally {
      lease.release();
    }
  }

  /** Workers alive now: the pool replaces a terminated one on demand. */
  get workerCount(): number {
    return this.pool.workerCount;
  }

  close(): Promise<void> {
    this.slots.close();
    return this.pool.close();
  }
}
