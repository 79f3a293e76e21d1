/**
 * The opt-in backend: real bash and real binaries in a bubblewrap sandbox per command (args.ts lists its walls),
 * with the container's quotas enforced around it: RLIMIT_FSIZE at what the quota has left, a watch that kills the
 * command when the container passes its quota, and a note when a command left it over (the next ones can then read
 * and remove files, not write). Each command runs in a slot (fair-slots.ts) as that slot's uid (host.ts), so its
 * process limit is its own.
 */
import { lstat, rm } from "node:fs/promises";
import { resolve } from "node:path";
import type { ExecResult, SandboxExecOptions } from "../../containers/contract.ts";
import type { SandboxBackend } from "../backend.ts";
import { FairSlots } from "../fair-slots.ts";
import type { ResolvedSandboxSettings } from "../settings.ts";
import { treeUsage } from "../tree-usage.ts";
import { adoptArgv, sandboxArgv, type HostIdentity } from "./args.ts";
import { slotUid, type BwrapPlan } from "./host.ts";
import { overQuota, watchQuota, type Quota } from "./quota-watch.ts";
import { runProcess, type RunningProcess } from "./run-process.ts";

export class BwrapBackend implements SandboxBackend {
  readonly name = "bwrap" as const;
  private readonly slots: FairSlots;
  private readonly quota: Quota;
  /** Commands running now: closing the backend stops them (they would otherwise run on after the gateway stopped). */
  private readonly running = new Set<RunningProcess>();

  constructor(
    private readonly settings: ResolvedSandboxSettings,
    private readonly plan: BwrapPlan,
  ) {
    this.slots = new FairSlots(settings.workers, settings.queueTimeoutMs);
    this.quota = { maxBytes: settings.maxFsBytes, maxEntries: settings.maxFiles };
  }

  /** Uids commands run as: one per slot, the spare included (tests look for leftover processes by them). */
  get uids(): number[] {
    return Array.from({ length: this.slots.capacity }, (_, index) => slotUid(this.plan, index));
  }

  async exec(root: string, command: string, options: SandboxExecOptions): Promise<ExecResult> {
    const dir = resolve(root);
    // The slot whose uid owns the container already, when free: its files need no adopting.
    const owner = await ownerOf(dir);
    const preferred = owner === undefined ? undefined : owner - this.plan.firstUid;
    const lease = await this.slots.acquire({ tenant: options.workspace ?? "", signal: options.signal, preferred });
    try {
      return await this.run(dir, command, options, { uid: slotUid(this.plan, lease.index), gid: this.plan.gid });
    } finally {
      lease.release();
    }
  }

  private async run(root: string, command: string, options: SandboxExecOptions, who: HostIdentity): Promise<ExecResult> {
    const before = await treeUsage(root, who.uid);
    if (before.foreign > 0 || (await ownerOf(root)) !== who.uid) await this.adopt(root, who);
    const wasOver = overQuota(before, this.quota);
    const limits = {
      timeoutMs: options.timeoutMs,
      maxMemoryBytes: this.settings.maxMemoryBytes,
      maxProcesses: this.settings.maxProcesses,
      fileSizeBytes: wasOver ? 0 : this.quota.maxBytes - before.bytes,
      tmpBytes: this.settings.tmpBytes,
    };
    // Cancelled while the container was measured or adopted: nothing is started.
    options.signal?.throwIfAborted();
    const running = runProcess(sandboxArgv(this.plan, who, root, command, limits), options);
    this.running.add(running);
    // A container already over its quota is watched from where it stands: the command that removes files (the way
    // out) must not be killed for what it found there, only for growing it further.
    const limit = { maxBytes: Math.max(this.quota.maxBytes, before.bytes), maxEntries: Math.max(this.quota.maxEntries, before.entries) };
    const stopWatching = watchQuota(root, limit, (why) =>
      running.kill(wasOver ? `command stopped: the container was over its quota and grew further (${why})` : `command stopped: the container holds ${why}`),
    );
    let result: ExecResult;
    try {
      result = await running.done;
    } finally {
      stopWatching();
      this.running.delete(running);
    }
    if (result.exitCode === 1 && result.stderr.startsWith("bwrap: Can't find source path")) {
      throw new Error(`sandbox uid ${who.uid} cannot reach the container directory ${root} (every parent must be searchable by it): ${result.stderr.trim()}`);
    }
    const isOver = overQuota(await treeUsage(root), this.quota);
    if (wasOver) result.stderr = `sandbox: the container was over its quota (${wasOver}): files can be read and removed, not written\n${result.stderr}`;
    else if (isOver) result.stderr += `sandbox: the container now holds ${isOver}: remove files before writing more\n`;
    return result;
  }

  /** Hands the container's files to the slot's uid (they were made by root, or by another slot), with a confined chown. */
  private async adopt(root: string, who: HostIdentity): Promise<void> {
    const proc = Bun.spawn(adoptArgv(this.plan, who, root), { stdin: "ignore", stdout: "ignore", stderr: "ignore", env: { PATH: "/usr/bin:/bin" } });
    await proc.exited;
  }

  async close(): Promise<void> {
    this.slots.close();
    const stopping = [...this.running].map((running) => (running.kill("sandbox backend closed"), running.done.catch(() => undefined)));
    await Promise.all(stopping);
    await rm(this.plan.etcDir, { recursive: true, force: true });
  }
}

async function ownerOf(path: string): Promise<number | undefined> {
  return (await lstat(path).catch(() => undefined))?.uid;
}
