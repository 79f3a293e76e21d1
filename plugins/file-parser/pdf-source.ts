/**
 * A PDF file part's bytes and text. Bytes come from a data: URL, or from an http(s) URL fetched through the
 * gateway's network policy (the hook context's `fetch`), read with a byte cap so an oversized file is never
 * downloaded whole. Text comes from the gateway's document workers (`helpers.documents`: unpdf, off the event loop,
 * under the `documents.pdf` caps), as for web_fetch. Every failure is a 400 that says which file and why
 * (`metadata.reason`): `pdf_encrypted`, `pdf_unreadable`, `pdf_too_large` (its bytes), `pdf_over_cap` (pages, decoded
 * streams, text, or the time or memory its reading took; `metadata.cap` names the setting), `file_download_failed`.
 */
import { readCapped, type FilePart, type GatewayError, type PluginContext } from "../../core/sdk/index.ts";

/** A URL download gives up after this long (the client may also go away first). */
const DOWNLOAD_TIMEOUT_MS = 30_000;

export type PdfFailure = "pdf_encrypted" | "pdf_unreadable" | "pdf_too_large" | "pdf_over_cap" | "file_download_failed";

/** Whether a file part is a PDF: by media type, data URL, file name or URL path. Provider file ids are not read. */
export function isPdf(part: FilePart): boolean {
  if (!isReadable(part.data)) return false;
  if (part.mediaType === "application/pdf" || part.data.startsWith("data:application/pdf")) return true;
  if (part.filename?.toLowerCase().endsWith(".pdf")) return true;
  return /^https?:/i.test(part.data) && /\.pdf$/i.test(safePath(part.data));
}

/** Whether the gateway can get at the bytes itself (a provider file id only its provider can resolve). */
export function isReadable(data: string): boolean {
  return data.startsWith("data:") || /^https?:\/\//i.test(data);
}

/** The name a file is shown by: its file name, else the last segment of its URL. */
export function nameOf(part: FilePart): string | undefined {
  if (part.filename) return part.filename;
  if (!/^https?:/i.test(part.data)) return undefined;
  const segment = safePath(part.data).split("/").pop();
  return segment ? decodeURIComponent(segment) : undefined;
}

function safePath(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return "";
  }
}

export function pdfError(ctx: PluginContext, reason: PdfFailure, file: string | undefined, message: string, cap?: string): GatewayError {
  const label = file ? `"${file}"` : "a PDF file";
  const metadata = { reason, ...(file ? { file } : {}), ...(cap ? { cap } : {}) };
  // Too large is the size of one file inside an accepted body, not the body itself: a 400 like the others.
  const type = reason === "pdf_too_large" || reason === "pdf_over_cap" ? "payload_too_large" : "invalid_request";
  return ctx.helpers.error(type, `file-parser: ${label} ${message}`, { status: 400, metadata });
}

/** The bytes of a PDF part, at most `maxBytes` of them. */
export async function pdfBytes(ctx: PluginContext, part: FilePart, maxBytes: number): Promise<Uint8Array> {
  const name = nameOf(part);
  const bytes = part.data.startsWith("data:") ? fromDataUrl(ctx, part.data, name, maxBytes) : await download(ctx, part.data, name, maxBytes);
  if (!startsWithPdfMagic(bytes)) throw pdfError(ctx, "pdf_unreadable", name, "is not a PDF (no %PDF- header)");
  return bytes;
}

function fromDataUrl(ctx: PluginContext, url: string, name: string | undefined, maxBytes: number): Uint8Array {
  const comma = url.indexOf(",");
  if (comma < 0 || !url.slice(0, comma).endsWith(";base64")) throw pdfError(ctx, "pdf_unreadable", name, "is not a base64 data URL");
  const payload = url.slice(comma + 1);
  // Decoded size from the base64 length, before decoding anything.
  if (Math.floor((payload.length * 3) / 4) - 2 > maxBytes) throw pdfError(ctx, "pdf_too_large", name, `is larger than ${maxBytes} bytes`);
  const bytes = Buffer.from(payload, "base64");
  if (bytes.byteLength > maxBytes) throw pdfError(ctx, "pdf_too_large", name, `is larger than ${maxBytes} bytes`);
  // A copy of its own: a small Buffer is a view into a shared pool, which pdf.js must not hold on to.
  return new Uint8Array(bytes);
}

async function download(ctx: PluginContext, url: string, name: string | undefined, maxBytes: number): Promise<Uint8Array> {
  let response: Response;
  try {
    response = await ctx.fetch(url, { signal: AbortSignal.any([ctx.signal, AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS)]) });
  } catch (error) {
    throw pdfError(ctx, "file_download_failed", name ?? url, `could not be downloaded: ${(error as Error).message}`);
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw pdfError(ctx, "file_download_failed", name ?? url, `could not be downloaded: HTTP ${response.status}`);
  }
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  if (declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw pdfError(ctx, "pdf_too_large", name ?? url, `is larger than ${maxBytes} bytes`);
  }
  const { bytes, truncated } = await readCapped(response, maxBytes);
  if (truncated) throw pdfError(ctx, "pdf_too_large", name ?? url, `is larger than ${maxBytes} bytes`);
  return bytes;
}

function startsWithPdfMagic(bytes: Uint8Array): boolean {
  // The header may follow a few bytes of junk (the PDF spec allows it within the first 1,024 bytes).
  const head = new TextDecoder("latin1").decode(bytes.subarray(0, 1024));
  return head.includes("%PDF-");
}

/** The text of a PDF (pages separated by blank lines) and its page count. */
export async function pdfText(ctx: PluginContext, bytes: Uint8Array, name: string | undefined): Promise<{ text: string; pages: number }> {
  const read = await ctx.helpers.documents.pdfText(bytes, { signal: ctx.signal });
  if (read.ok) return { text: read.content, pages: read.pages };
  const reason = read.reason === "encrypted" ? "pdf_encrypted" : read.reason === "unreadable" ? "pdf_unreadable" : "pdf_over_cap";
  throw pdfError(ctx, reason, name, read.message, read.cap);
}
