/**
 * A PDF's text (unpdf, which is pdf.js), inside a document worker, under the `documents.pdf` caps: decoded stream
 * bytes counted before pdf.js reads anything (pdf-streams.ts), the page count read before any page is, and the
 * characters counted as pdf.js streams them. Pages are read one at a time and released, so a long document never
 * holds every page's structures at once (reading them all together took 5–16 GB for 20,000 pages).
 */
import type { PdfCaps } from "../../config/documents.ts";
import { failure, overCap } from "./failures.ts";
import { flateDecodedBytes } from "./pdf-streams.ts";
import type { DocumentResult, PdfText } from "./types.ts";

/** pdf.js's own errors about the file, whose messages describe the file ("Invalid PDF structure."). */
const PDF_ERRORS = new Set(["InvalidPDFException", "FormatError", "MissingPDFException", "UnexpectedResponseException", "UnknownErrorException"]);

export async function readPdf(bytes: Uint8Array, caps: PdfCaps): Promise<DocumentResult<PdfText>> {
  if ((await flateDecodedBytes(bytes, caps.maxDecodedBytes)) > caps.maxDecodedBytes) {
    return overCap("too_much_data", "has compressed streams that decode to more than {n} bytes", caps.maxDecodedBytes, "documents.pdf.max_decoded_bytes");
  }
  const { getDocumentProxy, getMeta } = await import("unpdf");
  let pdf: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    // Only errors reach the console (pdf.js warns about every damaged file otherwise).
    pdf = await getDocumentProxy(bytes, { verbosity: 0 });
  } catch (error) {
    return unreadable(error);
  }
  let complete = false;
  try {
    if (pdf.numPages > caps.maxPages) return overCap("too_many_pages", "has more than {n} pages", caps.maxPages, "documents.pdf.max_pages");
    const pages: string[] = [];
    let chars = 0;
    for (let number = 1; number <= pdf.numPages; number++) {
      const page = await pdf.getPage(number);
      const text = await pageText(page, caps.maxChars - chars);
      if (text === undefined) return overCap("too_much_text", "has more than {n} characters of text", caps.maxChars, "documents.pdf.max_chars");
      page.cleanup();
      chars += text.length;
      pages.push(text);
    }
    const content = pages
      .map((page) => page.replace(/[ \t]+\n/g, "\n").trim())
      .filter((page) => page !== "")
      .join("\n\n");
    complete = true;
    return { ok: true, title: await titleOf(pdf, getMeta), content, pages: pdf.numPages };
  } catch (error) {
    return unreadable(error);
  } finally {
    // Awaited only after a whole read: after one stopped part-way pdf.js may never settle it (it waits for the
    // page's abandoned text stream), and the worker is replaced after any failure (worker.ts).
    const destroyed = pdf.loadingTask.destroy().catch(() => undefined);
    if (complete) await destroyed;
  }
}

interface TextItem {
  str?: string;
  hasEOL?: boolean;
}

/**
 * A page's text as unpdf's extractText joins it (each item's string, a line break where an item ends a line), read
 * as pdf.js streams it: undefined as soon as it passes `budget` characters.
 */
async function pageText(page: { streamTextContent(): ReadableStream<{ items: TextItem[] }> }, budget: number): Promise<string | undefined> {
  const reader = page.streamTextContent().getReader();
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text;
    for (const item of value.items) if (typeof item.str === "string") text += item.str + (item.hasEOL ? "\n" : "");
    // Not cancelled: pdf.js then fails in its own message handler (an unhandled "Controller is already closed");
    // destroying the document, as the caller does next, stops the page's work.
    // Left unread rather than cancelled: cancelling makes pdf.js fail in its own message handler ("Controller is
    // already closed", unhandled). The worker is replaced after this failure, and its page with it.
    if (text.length > budget) return undefined;
  }
}

async function titleOf<P>(pdf: P, getMeta: (pdf: P) => Promise<{ info?: Record<string, unknown> }>): Promise<string> {
  try {
    const value = (await getMeta(pdf)).info?.Title;
    return typeof value === "string" ? value.trim() : "";
  } catch {
    return ""; // No readable metadata.
  }
}

function unreadable(error: unknown): DocumentResult<PdfText> {
  const { name, message } = error instanceof Error ? error : { name: "", message: "" };
  if (name === "PasswordException") return failure("encrypted", "is encrypted (password-protected); send it decrypted");
  return failure("unreadable", PDF_ERRORS.has(name) && message ? `is not a readable PDF (${message.replace(/\.$/, "")})` : "is not a readable PDF (it is damaged)");
}
