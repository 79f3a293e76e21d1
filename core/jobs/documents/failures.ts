/** Failures of a document read, worded to follow the document's name ("report.pdf" has more than …). */
import type { DocumentFailure, DocumentFailureReason } from "./types.ts";

const count = (n: number) => n.toLocaleString("en-US");

/** Over a cap: "has more than 2,000 pages (the cap is documents.pdf.max_pages)". */
export function overCap(reason: DocumentFailureReason, what: string, limit: number, cap: string): DocumentFailure {
  return { ok: false, reason, message: `${what.replace("{n}", count(limit))} (the cap is ${cap})`, cap };
}

export function failure(reason: "encrypted" | "unreadable", message: string): DocumentFailure {
  return { ok: false, reason, message };
}
