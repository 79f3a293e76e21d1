/**
 * The opt-in backend: real bash and real binaries in a bubblewrap sandbox per command (args.ts lists its walls),
 * with the container's quotas enforced around it: RLIMIT_FSIZE at what the quota has left, a watch that kills the
 * command when the container passes its quota, and a note when a command left it over (the next ones can then read
 * and remove files, not write).
 */
import { lstat, rm } from "node:fs/promises";
import { resolve } from "node:path";
import type { ExecOptions, ExecResult } from "../../containers/contract.ts";
import type { SandboxBackend } from "../backend.ts";
import { Semaphore } from "../semaphore.ts";
import type { ResolvedSandboxSettings } from "../settings.ts";
import { treeUsage } from "../tree-usage.ts";
import { adoptArgv, sandboxArgv } from "./args.ts";
import type { BwrapPlan } from "./host.ts";
import { overQuota, watchQuota, type Quota } from "./quota-watch.ts";
import { runProcess } from "./run-process.ts";

export class BwrapBackend implements SandboxBackend {
  readonly name = "bwrap" as const;
  private readonly slots: Semaphore;
  private readonly quota: Quota;

  constructor(
    private readonly settings: ResolvedSandboxSettings,
    private readonly plan: BwrapPlan,
  ) {
    this.slots = new Semaphore(settings.workers);
    this.quota = { maxBytes: settings.maxFsBytes, maxEntries: settings.maxFiles };
  }

  async exec(root: string, command: string, options: ExecOptions): Promise<ExecResult> {
    const release = await this.slots.acquire(options.signal);
    try {
      return await this.run(resolve(root), command, options);
    } finally {
      release();
    }
  }

  private async run(root: string, command: string, options: ExecOptions): Promise<ExecResult> {
    // Root ownership matters only when we dropped to another uid: otherwise the sandbox maps onto our own.
    const owner = this.plan.setpriv ? this.plan.hostUid : undefined;
    const before = await treeUsage(root, owner);
    if (before.foreign > 0 || (owner !== undefined && (await ownerOf(root)) !== owner)) await this.adopt(root);
    const wasOver = overQuota(before, this.quota);
    const limits = {
      timeoutMs: options.timeoutMs,
      maxMemoryBytes: this.settings.maxMemoryBytes,
      maxProcesses: this.settings.maxProcesses,
      fileSizeBytes: wasOver ? 0 : this.quota.maxBytes - before.bytes,
      tmpBytes: this.settings.tmpBytes,
    };
    const running = runProcess(sandboxArgv(this.plan, root, command, limits), options);
    const stopWatching = watchQuota(root, this.quota, (why) => running.kill(`command stopped: the container holds ${why}`));
    let result: ExecResult;
    try {
      result = await running.done;
    } finally {
      stopWatching();
    }
    if (result.exitCode === 1 && result.stderr.startsWith("bwrap: Can't find source path")) {
      throw new Error(`sandbox uid ${this.plan.hostUid} cannot reach the container directory ${root} (every parent must be searchable by it): ${result.stderr.trim()}`);
    }
    const isOver = overQuota(await treeUsage(root), this.quota);
    if (wasOver) result.stderr = `sandbox: the container was over its quota (${wasOver}): files can be read and removed, not written\n${result.stderr}`;
    else if (isOver) result.stderr += `sandbox: the container now holds ${isOver}: remove files before writing more\n`;
    return result;
  }

  /** Hands files the container service created (as root) to the sandbox uid, with a chown confined to the container. */
  private async adopt(root: string): Promise<void> {
    const proc = Bun.spawn(adoptArgv(this.plan, root), { stdin: "ignore", stdout: "ignore", stderr: "ignore", env: { PATH: "/usr/bin:/bin" } });
    await proc.exited;
  }

  async close(): Promise<void> {
    await rm(this.plan.etcDir, { recursive: true, force: true });
  }
}

async function ownerOf(path: string): Promise<number | undefined> {
  return (await lstat(path).catch(() => undefined))?.uid;
}
