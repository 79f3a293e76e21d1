/**
 * Runs one sandbox process tree to completion: output kept up to the cap (the rest drained and counted), killed at
 * the deadline, when its output passes a ceiling (`yes` would otherwise keep the gateway reading for the whole
 * deadline), or when the caller asks (quota). A kill takes the whole sandbox down before `done` settles
 * (kill-sandbox.ts): no process of the command outlives it.
 */
import { constants } from "node:os";
import type { ExecResult } from "../../containers/contract.ts";
import { CappedCollector } from "../output-cap.ts";
import { killSandbox } from "./kill-sandbox.ts";

/** Output beyond which the command is killed rather than drained: room for "print 10 MB", not for an endless stream. */
const MIN_OUTPUT_CEILING = 16 * 1024 * 1024;
/** After the process exits, how long its pipes may stay open (held by a dying grandchild) before we stop reading. */
const PIPE_DRAIN_MS = 1000;

export interface ProcessOptions {
  timeoutMs: number;
  maxOutputBytes: number;
  signal?: AbortSignal;
}

export interface RunningProcess {
  /** Kills the tree; `reason` is appended to stderr. */
  kill(reason: string): void;
  /** Rejects only when `signal` aborted. */
  done: Promise<ExecResult>;
}

async function drain(stream: ReadableStream<Uint8Array>, into: CappedCollector, onChunk: () => void, exited: Promise<void>): Promise<void> {
  const reader = stream.getReader();
  let finished = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  void exited.then(() => {
    if (!finished) timer = setTimeout(() => void reader.cancel().catch(() => {}), PIPE_DRAIN_MS);
  });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      into.push(value);
      onChunk();
    }
  } catch {
    // cancelled after the drain period: what was read is kept
  } finally {
    finished = true;
    clearTimeout(timer);
  }
}

export function runProcess(argv: string[], options: ProcessOptions): RunningProcess {
  const proc = Bun.spawn(argv, {
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    // Nothing of the gateway's environment: bwrap (the sandbox's pid 1) shows its own in /proc/1/environ.
    env: { PATH: "/usr/bin:/bin" },
  });
  const stdout = new CappedCollector(options.maxOutputBytes);
  const stderr = new CappedCollector(options.maxOutputBytes);
  const ceiling = Math.max(MIN_OUTPUT_CEILING, 4 * options.maxOutputBytes);
  let killedFor: string | undefined;
  let timedOut = false;
  let stopKilling = () => {};
  const kill = (reason: string) => {
    if (killedFor !== undefined) return;
    killedFor = reason;
    stopKilling = killSandbox(proc);
  };
  const deadline = setTimeout(() => {
    timedOut = true;
    kill(`command timed out after ${options.timeoutMs} ms`);
  }, options.timeoutMs);
  const onAbort = () => kill("command cancelled");
  options.signal?.addEventListener("abort", onAbort, { once: true });
  // Aborted while the backend was still preparing: a listener added now would never fire.
  if (options.signal?.aborted) onAbort();
  const onChunk = () => {
    if (stdout.total + stderr.total > ceiling) kill(`command stopped: it printed more than ${ceiling} bytes`);
  };
  const exited = proc.exited.then(() => undefined);

  const done = (async (): Promise<ExecResult> => {
    await Promise.all([
      drain(proc.stdout, stdout, onChunk, exited),
      drain(proc.stderr, stderr, onChunk, exited),
      exited,
    ]);
    clearTimeout(deadline);
    stopKilling();
    options.signal?.removeEventListener("abort", onAbort);
    if (options.signal?.aborted) throw options.signal.reason;
    let exitCode: number | null = proc.exitCode;
    if (exitCode === null && typeof proc.signalCode === "string") exitCode = 128 + (constants.signals[proc.signalCode] ?? 0);
    const note = killedFor === undefined ? "" : `${stderr.total > 0 ? "\n" : ""}sandbox: ${killedFor}\n`;
    return {
      stdout: stdout.text(),
      stderr: stderr.text() + note,
      exitCode: timedOut ? null : exitCode,
      timedOut,
      truncated: stdout.truncated || stderr.truncated,
    };
  })();
  return { kill, done };
}
