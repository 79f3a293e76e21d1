/**
 * Entry of a just-bash Bun Worker: runs one job at a time for the pool (worker-pool.ts). A script that loops or
 * blocks stalls only this thread; the pool terminates it at the deadline and starts another.
 *
 * In a `bun build --compile` binary this file must be a build entrypoint of its own (package.json `build:binary`).
 */
import type { JobRequest, WorkerMessage } from "./protocol.ts";
import { runScript } from "./run-script.ts";
import { lowerThisThreadPriority } from "./thread-priority.ts";

declare const self: Worker;

// A script that spins must never take a core from the gateway's event loop.
lowerThisThreadPriority();

function send(message: WorkerMessage): void {
  self.postMessage(message);
}

self.onmessage = async (event: MessageEvent<JobRequest>) => {
  const job = event.data;
  try {
    send(await runScript(job));
  } catch (error) {
    // just-bash reports script errors as results; reaching here is a bug or a host failure (disk, permissions).
    const message = error instanceof Error ? error.message : String(error);
    send({ type: "result", id: job.id, stdout: "", stderr: `sandbox: ${message}\n`, exitCode: 1, truncated: false, timedOut: false });
  }
};

send({ type: "ready" });
