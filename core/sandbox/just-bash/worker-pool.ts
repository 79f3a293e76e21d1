/**
 * A fixed number of just-bash Bun Workers, each running one command at a time; more commands wait in a queue. A
 * command still running at its deadline (or past the memory budget, or cancelled) has its worker terminated: the
 * only way to stop a script stuck in synchronous code. The worker is replaced on the next dispatch.
 *
 * The gateway thread only posts a request and receives a capped result: no script ever runs on it.
 */
import type { ExecResult } from "../../containers/contract.ts";
import { MemoryGuard } from "./memory-guard.ts";
import type { JobLimits, JobRequest, WorkerMessage } from "./protocol.ts";

/** How long after its deadline a command may take to stop by itself (and return its partial output). */
const KILL_GRACE_MS = 250;

/** The usual cause of a worker that cannot load. */
const BUILD_HINT = "a compiled binary must name core/sandbox/just-bash/just-bash-worker.ts as a build entrypoint";

export interface PoolOptions {
  size: number;
  /** Growth of the process's resident memory, while commands run, at which the longest-running one is stopped. */
  memoryBudgetBytes: number;
  spawn: () => Worker;
}

interface Job {
  request: JobRequest;
  signal: AbortSignal | undefined;
  /** Its abort listener while it waits in the queue. */
  onQueuedAbort: () => void;
  resolve(result: ExecResult): void;
  reject(error: unknown): void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  job: (Job & { startedAt: number; deadline: ReturnType<typeof setTimeout>; unlisten(): void }) | undefined;
}

export class WorkerPool {
  private readonly slots = new Set<Slot>();
  private readonly queue: Job[] = [];
  private readonly guard: MemoryGuard;
  private nextId = 1;
  private closed = false;

  constructor(private readonly options: PoolOptions) {
    this.guard = new MemoryGuard(options.memoryBudgetBytes, () => this.stopLongestRunning());
  }

  run(root: string, command: string, limits: JobLimits, signal?: AbortSignal): Promise<ExecResult> {
    if (this.closed) return Promise.reject(new Error("sandbox backend is closed"));
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const job: Job = { request: { type: "run", id: this.nextId++, root, command, limits }, signal, resolve, reject, onQueuedAbort: () => this.cancelQueued(job) };
      this.queue.push(job);
      signal?.addEventListener("abort", job.onQueuedAbort, { once: true });
      this.dispatch();
    });
  }

  /** Workers alive now (tests and the bench check replacement). */
  get workerCount(): number {
    return this.slots.size;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.guard.stop();
    for (const job of this.queue.splice(0)) job.reject(new Error("sandbox backend is closed"));
    for (const slot of this.slots) this.kill(slot, { stdout: "", stderr: "sandbox: backend closed\n", exitCode: null, timedOut: false, truncated: false });
  }

  private cancelQueued(job: Job): void {
    const at = this.queue.indexOf(job);
    if (at >= 0) {
      this.queue.splice(at, 1);
      job.reject(job.signal?.reason);
    }
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const slot = this.idleSlot();
      if (!slot) return;
      this.start(slot, this.queue.shift()!);
    }
  }

  private idleSlot(): Slot | undefined {
    for (const slot of this.slots) if (!slot.job) return slot;
    if (this.slots.size < this.options.size) return this.spawnSlot();
    return undefined;
  }

  private spawnSlot(): Slot {
    const slot: Slot = { worker: this.options.spawn(), ready: false, job: undefined };
    slot.worker.onmessage = (event: MessageEvent<WorkerMessage>) => this.onMessage(slot, event.data);
    slot.worker.onerror = (event: ErrorEvent) => this.onWorkerError(slot, event);
    this.slots.add(slot);
    return slot;
  }

  private start(slot: Slot, job: Job): void {
    job.signal?.removeEventListener("abort", job.onQueuedAbort);
    const onAbort = () => {
      this.kill(slot, undefined);
      job.reject(job.signal?.reason);
    };
    job.signal?.addEventListener("abort", onAbort, { once: true });
    const timeoutMs = job.request.limits.timeoutMs;
    const deadline = setTimeout(() => {
      this.kill(slot, { stdout: "", stderr: `sandbox: command timed out after ${timeoutMs} ms\n`, exitCode: null, timedOut: true, truncated: false });
    }, timeoutMs + KILL_GRACE_MS);
    slot.job = { ...job, startedAt: performance.now(), deadline, unlisten: () => job.signal?.removeEventListener("abort", onAbort) };
    slot.worker.postMessage(job.request);
    this.guard.setBusy(this.running());
  }

  private onMessage(slot: Slot, message: WorkerMessage): void {
    if (message.type === "ready") {
      slot.ready = true;
      return;
    }
    const job = slot.job;
    if (!job || job.request.id !== message.id) return; // a late answer for a job already settled
    this.finish(slot);
    job.resolve({
      stdout: message.stdout,
      stderr: message.stderr,
      exitCode: message.timedOut ? null : message.exitCode,
      timedOut: message.timedOut,
      truncated: message.truncated,
    });
    this.dispatch();
  }

  private onWorkerError(slot: Slot, event: ErrorEvent): void {
    const job = slot.job;
    this.kill(slot, undefined);
    // Failing before it ever became ready means the worker cannot load (say, a binary built without its entrypoint):
    // a fault of the gateway, not of the command, so it is thrown rather than shown to the model as output.
    if (job && !slot.ready) job.reject(new Error(`sandbox worker failed to start (${BUILD_HINT}): ${event.message}`));
    else job?.resolve({ stdout: "", stderr: `sandbox: the command's worker failed: ${event.message}\n`, exitCode: 1, timedOut: false, truncated: false });
    if (!slot.ready) {
      // Do not retry in a loop: the queued jobs would meet the same fault.
      for (const queued of this.queue.splice(0)) queued.reject(new Error(`sandbox worker failed to start (${BUILD_HINT}): ${event.message}`));
    }
    this.dispatch();
  }

  /** Clears the slot's job (timer, abort listener) without settling it. */
  private finish(slot: Slot): void {
    if (!slot.job) return;
    clearTimeout(slot.job.deadline);
    slot.job.unlisten();
    slot.job = undefined;
    this.guard.setBusy(this.running());
  }

  /** Terminates the slot's worker; its job, if any, gets `result` (undefined: the caller settles it). */
  private kill(slot: Slot, result: ExecResult | undefined): void {
    const job = slot.job;
    this.finish(slot);
    this.slots.delete(slot);
    slot.worker.onmessage = null;
    slot.worker.onerror = null;
    slot.worker.terminate();
    if (job && result) job.resolve(result);
    if (!this.closed) this.dispatch();
  }

  private stopLongestRunning(): void {
    let oldest: Slot | undefined;
    for (const slot of this.slots) if (slot.job && (!oldest || slot.job.startedAt < oldest.job!.startedAt)) oldest = slot;
    if (!oldest) return;
    const budget = this.options.memoryBudgetBytes;
    this.kill(oldest, { stdout: "", stderr: `sandbox: command stopped: it used more than ${budget} bytes of memory\n`, exitCode: 137, timedOut: false, truncated: false });
  }

  private running(): number {
    let n = 0;
    for (const slot of this.slots) if (slot.job) n++;
    return n;
  }
}
