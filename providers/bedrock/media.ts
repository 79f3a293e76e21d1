/**
 * Images and documents as Bedrock takes them: bytes (base64 in JSON) or an `s3://` location, each with its format
 * named. Bedrock fetches no http(s) URL; those, and formats it has no name for, are left to the caller to report.
 */
import { parseDataUrl } from "../../core/sdk/provider.ts";
import type { WireDocument, WireImage, WireSource } from "./wire.ts";

const IMAGE_FORMATS: Record<string, WireImage["format"]> = {
  "image/png": "png",
  "image/jpeg": "jpeg",
  "image/jpg": "jpeg",
  "image/gif": "gif",
  "image/webp": "webp",
};
const IMAGE_EXTENSIONS: Record<string, WireImage["format"]> = { png: "png", jpg: "jpeg", jpeg: "jpeg", gif: "gif", webp: "webp" };

const DOCUMENT_FORMATS: Record<string, WireDocument["format"]> = {
  "application/pdf": "pdf",
  "text/csv": "csv",
  "application/msword": "doc",
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
  "application/vnd.ms-excel": "xls",
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "xlsx",
  "text/html": "html",
  "text/plain": "txt",
  "text/markdown": "md",
};
const DOCUMENT_EXTENSIONS: ReadonlySet<string> = new Set(["pdf", "csv", "doc", "docx", "xls", "xlsx", "html", "txt", "md"]);

/** A media reference: a data URL's bytes or an S3 object, with the MIME type or file extension that names its format. */
interface Located {
  source: WireSource;
  mediaType?: string;
  extension?: string;
}

function locate(url: string, mediaType: string | undefined): Located | undefined {
  const data = parseDataUrl(url);
  if (data) return { source: { bytes: data.base64 }, mediaType: data.mediaType.toLowerCase() };
  if (/^s3:\/\/[^/]+\/.+/i.test(url)) {
    const extension = /\.([a-z0-9]+)$/i.exec(url)?.[1]?.toLowerCase();
    return { source: { s3Location: { uri: url } }, ...(mediaType ? { mediaType: mediaType.toLowerCase() } : {}), ...(extension ? { extension } : {}) };
  }
  return undefined;
}

/** An image block, or undefined when Bedrock cannot take it (an http(s) URL, an unknown format). */
export function imageBlock(url: string, mediaType?: string): WireImage | undefined {
  const located = locate(url, mediaType);
  if (!located) return undefined;
  const format = IMAGE_FORMATS[located.mediaType ?? ""] ?? IMAGE_EXTENSIONS[located.extension ?? ""];
  return format === undefined ? undefined : { format, source: located.source };
}

/** True for a data URL or S3 URI whose type is an image. */
export function isImageReference(url: string, mediaType?: string): boolean {
  const located = locate(url, mediaType);
  return located !== undefined && ((located.mediaType ?? "").startsWith("image/") || IMAGE_EXTENSIONS[located.extension ?? ""] !== undefined);
}

/** A document block named `name`, or undefined when Bedrock cannot take it. */
export function documentBlock(url: string, mediaType: string | undefined, name: string): WireDocument | undefined {
  const located = locate(url, mediaType);
  if (!located) return undefined;
  const byType = DOCUMENT_FORMATS[located.mediaType ?? ""];
  const byExtension = located.extension !== undefined && DOCUMENT_EXTENSIONS.has(located.extension) ? (located.extension as WireDocument["format"]) : undefined;
  const format = byType ?? byExtension;
  return format === undefined ? undefined : { format, name, source: located.source };
}

/**
 * A document name Bedrock accepts (letters, digits, single spaces, hyphens, parentheses, square brackets), from a
 * file name without its extension; `fallback` when nothing usable is left.
 */
export function documentName(filename: string | undefined, fallback: string): string {
  const stem = (filename ?? "").replace(/\.[A-Za-z0-9]+$/, "");
  const cleaned = stem.replace(/[^A-Za-z0-9\s\-()[\]]/g, "-").replace(/\s+/g, " ").trim().slice(0, 200);
  return cleaned === "" ? fallback : cleaned;
}
