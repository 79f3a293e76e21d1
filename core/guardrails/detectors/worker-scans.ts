/**
 * Built-in detectors over big texts, off the event loop (README "Caps on heavy work"). A built-in reads a whole text
 * with JavaScript RegExps and code around them: one call cannot be cut into slices, and reading the text in parts
 * would change what it finds (a match across a cut, a run whose length decides, a window of context). So when the
 * texts of one check are big, the built-ins run on them in a worker thread (scan-worker.ts), with the same code and
 * the same strings, hence the same findings; the gateway thread only copies the texts in and the findings out, in
 * slices. Workers start on the first big check, so a gateway that never has one never starts any.
 */
import { JobPool, type JobOutcome } from "../../jobs/worker-pool.ts";
import { workerSpecifier } from "../../jobs/worker-specifier.ts";
import type { Slices } from "../../model/slices.ts";
import type { Finding } from "./types.ts";
import type { BuiltinScanAnswer, BuiltinScanJob } from "./worker-protocol.ts";

/**
 * Characters a check's built-ins read on the event loop at most (all its texts together); more go to a worker. The
 * slowest built-in on the most hostile text measured takes ~0.7 µs a character (prompt injection on fullwidth
 * letters, 2 cores under load), so one detector on one text stays within ~25 ms, and the loop is given back between.
 */
export const INLINE_CHARS = 32_768;
/** A worker scan still running after this is stopped (its worker terminated) and the check fails closed. */
export const WORKER_SCAN_TIMEOUT_MS = 30_000;
/** Growth of the process's memory while scans run at which the longest is stopped (10 MB of text takes ~0.3 GB). */
export const WORKER_SCAN_MEMORY_BYTES = 1024 * 1024 * 1024;
const WORKERS = 2;
/** Code units copied (or findings read back) between two looks at the clock: ~1–4 ms. */
const COPY_STEP = 262_144;

const WORKER_FROM_BUILD_ROOT = "core/guardrails/detectors/scan-worker";

/** One built-in to run on one of the texts. */
export interface BuiltinRead {
  slug: string;
  text: number;
}

/** A worker scan that did not answer within its bound: `bound` says which, `limit` its value. */
export class WorkerScanStopped extends Error {
  override readonly name = "WorkerScanStopped";
  constructor(
    readonly bound: "time" | "memory",
    readonly limit: number,
  ) {
    super(`built-in scan stopped at its ${bound} bound (${limit})`);
  }
}

let pool: JobPool<BuiltinScanJob, BuiltinScanAnswer> | undefined;

function scanPool(): JobPool<BuiltinScanJob, BuiltinScanAnswer> {
  pool ??= new JobPool({
    label: "guardrail scan",
    size: WORKERS,
    memoryBudgetBytes: WORKER_SCAN_MEMORY_BYTES,
    // `env: {}`: a worker otherwise starts with a copy of the gateway's environment (secrets).
    spawn: () => new Worker(workerSpecifier(WORKER_FROM_BUILD_ROOT), { env: {}, name: "guardrail-scan" }),
    startHint: `a build must name ${WORKER_FROM_BUILD_ROOT}.ts as an entrypoint`,
    // Idle workers never keep a process alive: the gateway's server does that, and a test's process may just end.
    unref: true,
  });
  return pool;
}

/** Findings of each read, in order, as `detector.find(texts[read.text])` gives them; throws WorkerScanStopped. */
export async function findInWorker(texts: readonly string[], reads: readonly BuiltinRead[], slices: Slices): Promise<Finding[][]> {
  const job = await pack(texts, reads, slices);
  const outcome = await scanPool().run(job, { timeoutMs: WORKER_SCAN_TIMEOUT_MS, transfer: [job.units.buffer, job.bounds.buffer, job.pairs.buffer] });
  return unpack(answerOf(outcome), reads.length, slices);
}

async function pack(texts: readonly string[], reads: readonly BuiltinRead[], slices: Slices): Promise<BuiltinScanJob> {
  const bounds = new Int32Array(texts.length + 1);
  for (let t = 0; t < texts.length; t++) bounds[t + 1] = bounds[t]! + texts[t]!.length;
  const units = new Uint16Array(bounds[texts.length]!);
  const bytes = new Uint8Array(units.buffer);
  for (let t = 0; t < texts.length; t++) {
    const text = texts[t]!;
    // Natively, code unit by code unit (`utf16le` keeps lone surrogates): ~4× a loop of `charCodeAt`.
    for (let from = 0; from < text.length; from += COPY_STEP) {
      bytes.set(Buffer.from(text.slice(from, from + COPY_STEP), "utf16le"), 2 * (bounds[t]! + from));
      await slices.next();
    }
  }
  const slugs = [...new Set(reads.map((r) => r.slug))];
  const pairs = new Int32Array(reads.length * 2);
  reads.forEach((read, i) => {
    pairs[2 * i] = read.text;
    pairs[2 * i + 1] = slugs.indexOf(read.slug);
  });
  return { units, bounds, pairs, slugs };
}

function answerOf(outcome: JobOutcome<BuiltinScanAnswer>): BuiltinScanAnswer & { ok: true } {
  switch (outcome.type) {
    case "done":
      if (!outcome.answer.ok) throw new Error(`built-in guardrail scan failed: ${outcome.answer.message}`);
      return outcome.answer;
    case "timeout":
      throw new WorkerScanStopped("time", outcome.timeoutMs);
    case "memory":
      throw new WorkerScanStopped("memory", outcome.budgetBytes);
    case "crashed":
      throw new Error(`built-in guardrail scan worker failed: ${outcome.message}`);
    case "closed":
      throw new Error("built-in guardrail scans stopped: the gateway is closing");
  }
}

async function unpack(answer: BuiltinScanAnswer & { ok: true }, reads: number, slices: Slices): Promise<Finding[][]> {
  const found: Finding[][] = Array.from({ length: reads }, () => []);
  const { findings, patterns } = answer;
  for (let q = 0; q < findings.length; q += 4) {
    found[findings[q]!]!.push({ start: findings[q + 1]!, end: findings[q + 2]!, pattern: patterns[findings[q + 3]!]! });
    if (q % COPY_STEP === 0) await slices.next();
  }
  return found;
}
