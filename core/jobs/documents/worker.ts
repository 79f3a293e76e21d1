/**
 * Entry of a document Bun Worker: reads one PDF or HTML page at a time for the pool (service.ts). A document that
 * makes its parser loop or swell stalls only this thread; the pool terminates it at the deadline or the memory bound
 * and starts another.
 *
 * Built, this file must be an entrypoint of its own (package.json `start` and `build:binary`).
 */
import { lowerThisThreadPriority } from "../../sandbox/just-bash/thread-priority.ts";
import { failure } from "./failures.ts";
import { readHtml } from "./html.ts";
import { readPdf } from "./pdf.ts";
import type { DocumentAnswer, DocumentJob } from "./protocol.ts";

declare const self: Worker;

// A parser spinning on a hostile document must never take a core from the gateway's event loop.
lowerThisThreadPriority();

self.onmessage = async (event: MessageEvent<DocumentJob & { id: number }>) => {
  const job = event.data;
  let answer: DocumentAnswer;
  try {
    answer = job.kind === "pdf" ? await readPdf(job.bytes, job.caps) : await readHtml(job.html, job.pageUrl, job.caps);
  } catch {
    // The readers turn the document's faults into failures; what reaches here (a stack overflow in a library) is
    // still the document's doing, and its text means nothing to whoever sent it.
    answer = failure("unreadable", "could not be read (its structure defeated the reader)");
  }
  // After a failure the worker is replaced: a read stopped at a cap may have left pdf.js or linkedom mid-work.
  self.postMessage({ type: "result", id: job.id, ...answer, ...(answer.ok ? {} : { retire: true }) });
};

self.postMessage({ type: "ready" });
