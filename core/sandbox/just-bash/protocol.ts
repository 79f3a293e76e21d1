/** Messages between the worker pool (gateway thread) and a just-bash worker. Plain data: they cross threads. */

export interface JobLimits {
  timeoutMs: number;
  maxOutputBytes: number;
  maxFsBytes: number;
  maxFiles: number;
  tmpBytes: number;
}

export interface JobRequest {
  type: "run";
  id: number;
  /** The container's host directory, mounted at SANDBOX_WORKDIR. */
  root: string;
  command: string;
  limits: JobLimits;
}

export interface JobResult {
  type: "result";
  id: number;
  stdout: string;
  stderr: string;
  exitCode: number;
  truncated: boolean;
  /** True when just-bash stopped the script at its own deadline (cooperatively, before the pool had to kill it). */
  timedOut: boolean;
}

/** Sent once the worker has loaded just-bash and can take jobs. */
export interface WorkerReady {
  type: "ready";
}

export type WorkerMessage = JobResult | WorkerReady;
