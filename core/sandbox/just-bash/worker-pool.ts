/**
 * just-bash commands on the gateway's job pool (core/jobs/worker-pool.ts): a fixed number of Bun Workers, one command
 * each, more in a queue. A command still running at its deadline (or past the memory budget, or cancelled) has its
 * worker terminated, the only way to stop a script stuck in synchronous code; the worker is replaced on the next
 * dispatch. Here the pool's outcomes become what a command shows the model (its stderr and exit code).
 *
 * The gateway thread only posts a request and receives a capped result: no script ever runs on it.
 */
import type { ExecResult } from "../../containers/contract.ts";
import { JobPool, type JobOutcome } from "../../jobs/worker-pool.ts";
import type { JobLimits, JobRequest, JobResult } from "./protocol.ts";

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

type Payload = Omit<JobRequest, "type" | "id">;
type Answer = Omit<JobResult, "type" | "id">;

export class WorkerPool {
  private readonly pool: JobPool<Payload, Answer>;

  constructor(options: PoolOptions) {
    this.pool = new JobPool({ ...options, label: "sandbox", killGraceMs: KILL_GRACE_MS, startHint: BUILD_HINT });
  }

  async run(root: string, command: string, limits: JobLimits, signal?: AbortSignal): Promise<ExecResult> {
    return execResult(await this.pool.run({ root, command, limits }, { timeoutMs: limits.timeoutMs, signal }));
  }

  /** Workers alive now (tests and the bench check replacement). */
  get workerCount(): number {
    return this.pool.workerCount;
  }

  async close(): Promise<void> {
    this.pool.close();
  }
}

function execResult(outcome: JobOutcome<Answer>): ExecResult {
  const stopped = (stderr: string, exitCode: number | null, timedOut = false): ExecResult => ({ stdout: "", stderr, exitCode, timedOut, truncated: false });
  switch (outcome.type) {
    case "done": {
      const { stdout, stderr, exitCode, timedOut, truncated } = outcome.answer;
      return { stdout, stderr, exitCode: timedOut ? null : exitCode, timedOut, truncated };
    }
    case "timeout":
      return stopped(`sandbox: command timed out after ${outcome.timeoutMs} ms\n`, null, true);
    case "memory":
      return stopped(`sandbox: command stopped: it used more than ${outcome.budgetBytes} bytes of memory\n`, 137);
    case "crashed":
      return stopped(`sandbox: the command's worker failed: ${outcome.message}\n`, 1);
    case "closed":
      return stopped("sandbox: backend closed\n", null);
  }
}
