/**
 * Document reading off the event loop (`helpers.documents`): each PDF or HTML page goes to a pooled worker
 * (worker.ts) with the configured caps; one still running at `documents.timeout_ms`, or while the process has grown
 * past `documents.max_memory_bytes`, has its worker terminated and comes back as a failure naming that bound. Workers
 * start on first use, so a gateway that never reads a document never starts one.
 */
import { DEFAULT_DOCUMENTS, type DocumentsConfig } from "../../config/documents.ts";
import { JobPool, type JobOutcome } from "../worker-pool.ts";
import { workerSpecifier } from "../worker-specifier.ts";
import { overCap } from "./failures.ts";
import type { DocumentAnswer, DocumentJob } from "./protocol.ts";
import type { DocumentJobs, DocumentResult, HtmlMarkdown, PdfText, ReadOptions } from "./types.ts";

const WORKER_FROM_BUILD_ROOT = "core/jobs/documents/worker";
const BUILD_HINT = `a build must name ${WORKER_FROM_BUILD_ROOT}.ts as an entrypoint`;

/** `env: {}`: a worker otherwise starts with a copy of the gateway's environment (secrets). */
export function spawnDocumentWorker(): Worker {
  return new Worker(workerSpecifier(WORKER_FROM_BUILD_ROOT), { env: {}, name: "documents" });
}

export interface DocumentService extends DocumentJobs {
  /** Workers alive now: the pool replaces a terminated one on demand. */
  readonly workerCount: number;
  /** Terminates the workers; reads in flight reject. */
  close(): void;
}

export function createDocumentService(settings: DocumentsConfig = DEFAULT_DOCUMENTS, spawn: () => Worker = spawnDocumentWorker): DocumentService {
  const pool = new JobPool<DocumentJob, DocumentAnswer>({
    label: "document",
    size: settings.workers,
    memoryBudgetBytes: settings.maxMemoryBytes,
    spawn,
    startHint: BUILD_HINT,
    // Idle workers never keep a process alive: the gateway's server does that, and a test's process may just end.
    unref: true,
  });
  const read = async <T>(job: DocumentJob, options: ReadOptions): Promise<DocumentResult<T>> =>
    answerOf(await pool.run(job, { timeoutMs: settings.timeoutMs, signal: options.signal }), settings) as DocumentResult<T>;
  return {
    pdfText: (bytes, options = {}) => read<PdfText>({ kind: "pdf", bytes, caps: settings.pdf }, options),
    htmlMarkdown: (html, pageUrl, options = {}) => read<HtmlMarkdown>({ kind: "html", html, pageUrl, caps: settings.html }, options),
    get workerCount() {
      return pool.workerCount;
    },
    close: () => pool.close(),
  };
}

function answerOf(outcome: JobOutcome<DocumentAnswer>, settings: DocumentsConfig): DocumentAnswer {
  switch (outcome.type) {
    case "done":
      return outcome.answer;
    case "timeout":
      return overCap("too_slow", "took longer than {n} ms to read", settings.timeoutMs, "documents.timeout_ms");
    case "memory":
      return overCap("too_much_memory", "needed more than {n} bytes of memory to read", settings.maxMemoryBytes, "documents.max_memory_bytes");
    case "crashed":
      return { ok: false, reason: "unreadable", message: "could not be read (its reader failed)" };
    case "closed":
      throw new Error("document reading stopped: the gateway is closing");
  }
}

let shared: DocumentService | undefined;

/** One service with the default caps for helpers built outside a gateway (conformance runs, tests); never closed. */
export function sharedDocumentService(): DocumentService {
  shared ??= createDocumentService();
  return shared;
}
