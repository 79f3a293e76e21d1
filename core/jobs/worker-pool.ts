/**
 * A fixed number of Bun Workers, each running one job at a time; more jobs wait in a queue. A job still running at
 * its deadline (or past the memory budget, or cancelled) has its worker terminated: the only way to stop code stuck
 * in a synchronous loop. The worker is replaced on the next dispatch.
 *
 * The gateway thread only posts a request and receives an answer: the job's work never runs on it. Used by the
 * just-bash sandbox (core/sandbox/just-bash/) and document extraction (core/jobs/documents/).
 *
 * Wire protocol (plain data, it crosses threads): the pool posts `{type: "run", id, ...payload}`; the worker posts
 * `{type: "ready"}` once it can take jobs, then `{type: "result", id, retire?, ...answer}` for each job. `retire: true`
 * asks for the worker to be replaced after this answer (a job it stopped part-way may have left a library mid-work).
 */
import { MemoryGuard } from "./memory-guard.ts";

export interface JobPoolOptions {
  /** Names the pool in its errors: "sandbox", "document extraction". */
  label: string;
  size: number;
  /** Growth of the process's resident memory, while jobs run, at which the longest-running one is stopped. */
  memoryBudgetBytes: number;
  spawn: () => Worker;
  /** How long after its deadline a job may take to answer by itself (a worker with a deadline of its own). */
  killGraceMs?: number;
  /** Said when a worker fails before it is ready: the usual cause (say, a build without the worker's entrypoint). */
  startHint: string;
  /** Idle workers do not keep the process alive (a pool made on demand, never closed by a short-lived caller). */
  unref?: boolean;
}

/** How a job ended: its answer, or why its worker was terminated. */
export type JobOutcome<A> =
  | { type: "done"; answer: A }
  | { type: "timeout"; timeoutMs: number }
  | { type: "memory"; budgetBytes: number }
  /** The worker failed (an uncaught error) while running the job. */
  | { type: "crashed"; message: string }
  /** The pool was closed while the job ran. */
  | { type: "closed" };

export interface RunOptions {
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  /** Buffers moved to the worker rather than copied (the caller must not use them afterwards). */
  transfer?: Bun.Transferable[];
}

/** A message from a worker. */
type WorkerMessage<A> = { type: "ready" } | ({ type: "result"; id: number; retire?: boolean } & A);

interface Job<P, A> {
  id: number;
  payload: P;
  options: RunOptions;
  /** Its abort listener while it waits in the queue. */
  onQueuedAbort: () => void;
  resolve(outcome: JobOutcome<A>): void;
  reject(error: unknown): void;
}

interface Slot<P, A> {
  worker: Worker;
  ready: boolean;
  job: (Job<P, A> & { startedAt: number; deadline: ReturnType<typeof setTimeout>; unlisten(): void }) | undefined;
}

export class JobPool<P extends object, A extends object> {
  private readonly slots = new Set<Slot<P, A>>();
  private readonly queue: Array<Job<P, A>> = [];
  private readonly guard: MemoryGuard;
  private nextId = 1;
  private closed = false;

  constructor(private readonly options: JobPoolOptions) {
    this.guard = new MemoryGuard(options.memoryBudgetBytes, () => this.stopLongestRunning());
  }

  /** Rejects only when the pool is closed, the signal aborts (with its reason) or no worker can start. */
  run(payload: P, options: RunOptions): Promise<JobOutcome<A>> {
    if (this.closed) return Promise.reject(this.closedError());
    if (options.signal?.aborted) return Promise.reject(options.signal.reason);
    return new Promise((resolve, reject) => {
      const job: Job<P, A> = { id: this.nextId++, payload, options, resolve, reject, onQueuedAbort: () => this.cancelQueued(job) };
      this.queue.push(job);
      options.signal?.addEventListener("abort", job.onQueuedAbort, { once: true });
      this.dispatch();
    });
  }

  /** Workers alive now (tests and the bench check replacement). */
  get workerCount(): number {
    return this.slots.size;
  }

  close(): void {
    this.closed = true;
    this.guard.stop();
    for (const job of this.queue.splice(0)) job.reject(this.closedError());
    for (const slot of this.slots) {
      const job = slot.job;
      this.kill(slot);
      job?.resolve({ type: "closed" });
    }
  }

  private closedError(): Error {
    return new Error(`${this.options.label} pool is closed`);
  }

  private cancelQueued(job: Job<P, A>): void {
    const at = this.queue.indexOf(job);
    if (at >= 0) {
      this.queue.splice(at, 1);
      job.reject(job.options.signal?.reason);
    }
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const slot = this.idleSlot();
      if (!slot) return;
      this.start(slot, this.queue.shift()!);
    }
  }

  private idleSlot(): Slot<P, A> | undefined {
    for (const slot of this.slots) if (!slot.job) return slot;
    if (this.slots.size < this.options.size) return this.spawnSlot();
    return undefined;
  }

  private spawnSlot(): Slot<P, A> {
    const slot: Slot<P, A> = { worker: this.options.spawn(), ready: false, job: undefined };
    slot.worker.onmessage = (event: MessageEvent<WorkerMessage<A>>) => this.onMessage(slot, event.data);
    slot.worker.onerror = (event: ErrorEvent) => this.onWorkerError(slot, event);
    if (this.options.unref) slot.worker.unref();
    this.slots.add(slot);
    return slot;
  }

  private start(slot: Slot<P, A>, job: Job<P, A>): void {
    const { signal, timeoutMs, transfer } = job.options;
    signal?.removeEventListener("abort", job.onQueuedAbort);
    const onAbort = () => {
      this.kill(slot);
      job.reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    const deadline = setTimeout(() => {
      this.kill(slot);
      job.resolve({ type: "timeout", timeoutMs });
    }, timeoutMs + (this.options.killGraceMs ?? 0));
    slot.job = { ...job, startedAt: performance.now(), deadline, unlisten: () => signal?.removeEventListener("abort", onAbort) };
    slot.worker.postMessage({ type: "run", id: job.id, ...job.payload }, transfer ?? []);
    this.guard.setBusy(this.running());
  }

  private onMessage(slot: Slot<P, A>, message: WorkerMessage<A>): void {
    if (message.type === "ready") {
      slot.ready = true;
      return;
    }
    const job = slot.job;
    if (!job || job.id !== message.id) return; // a late answer for a job already settled
    const { type: _type, id: _id, retire, ...answer } = message;
    if (retire) this.kill(slot);
    else this.finish(slot);
    job.resolve({ type: "done", answer: answer as unknown as A });
    this.dispatch();
  }

  private onWorkerError(slot: Slot<P, A>, event: ErrorEvent): void {
    const job = slot.job;
    this.kill(slot);
    // Failing before it ever became ready means the worker cannot load: a fault of the gateway, not of the job, so
    // it is thrown rather than reported as the job's outcome.
    const cannotStart = () => new Error(`${this.options.label} worker failed to start (${this.options.startHint}): ${event.message}`);
    if (job && !slot.ready) job.reject(cannotStart());
    else job?.resolve({ type: "crashed", message: event.message });
    if (!slot.ready) {
      // Do not retry in a loop: the queued jobs would meet the same fault.
      for (const queued of this.queue.splice(0)) queued.reject(cannotStart());
    }
    this.dispatch();
  }

  /** Clears the slot's job (timer, abort listener) without settling it. */
  private finish(slot: Slot<P, A>): void {
    if (!slot.job) return;
    clearTimeout(slot.job.deadline);
    slot.job.unlisten();
    slot.job = undefined;
    this.guard.setBusy(this.running());
  }

  /** Terminates the slot's worker; the caller settles its job. */
  private kill(slot: Slot<P, A>): void {
    this.finish(slot);
    this.slots.delete(slot);
    slot.worker.onmessage = null;
    slot.worker.onerror = null;
    slot.worker.terminate();
    if (!this.closed) queueMicrotask(() => this.dispatch());
  }

  private stopLongestRunning(): void {
    let oldest: Slot<P, A> | undefined;
    for (const slot of this.slots) if (slot.job && (!oldest || slot.job.startedAt < oldest.job!.startedAt)) oldest = slot;
    const job = oldest?.job;
    if (!oldest || !job) return;
    this.kill(oldest);
    job.resolve({ type: "memory", budgetBytes: this.options.memoryBudgetBytes });
  }

  private running(): number {
    let n = 0;
    for (const slot of this.slots) if (slot.job) n++;
    return n;
  }
}
