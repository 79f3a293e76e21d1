/**
 * What a fetched body is and how its text is decoded: HTML and PDF go to the gateway's document workers
 * (`helpers.documents`: Markdown of the main content, the PDF's text), plain text, Markdown and JSON are used as they are.
 */

export type ContentKind = "html" | "pdf" | "text" | "json";

/** The kind a content type is read as; undefined when it is not one we read. */
export function kindOfType(mime: string): ContentKind | undefined {
  if (mime === "text/html" || mime === "application/xhtml+xml") return "html";
  if (mime === "application/pdf" || mime === "application/x-pdf") return "pdf";
  if (mime === "text/plain" || mime === "text/markdown" || mime === "text/x-markdown") return "text";
  if (mime === "application/json" || mime === "text/json" || /^application\/[\w.+-]+\+json$/.test(mime)) return "json";
  return undefined;
}

/** Content types that say nothing about the body: the bytes decide (PDF magic, an HTML start). */
export function isUntyped(mime: string): boolean {
  return mime === "" || mime === "application/octet-stream" || mime === "binary/octet-stream" || mime === "application/unknown";
}

export function sniffKind(bytes: Uint8Array): ContentKind | undefined {
  const head = new TextDecoder("latin1").decode(bytes.subarray(0, 512));
  if (head.startsWith("%PDF-")) return "pdf";
  if (/^(\uFEFF|\u00EF\u00BB\u00BF)?\s*(<!doctype html|<html|<head|<body)/i.test(head)) return "html";
  return undefined;
}

/** `text/html; charset=…` → `{mime: "text/html", charset}`. */
export function parseContentType(header: string | null): { mime: string; charset?: string } {
  if (!header) return { mime: "" };
  const [type = "", ...params] = header.split(";");
  const charset = params
    .map((param) => param.trim().match(/^charset\s*=\s*"?([^";\s]+)"?$/i)?.[1])
    .find((value) => value !== undefined);
  return { mime: type.trim().toLowerCase(), ...(charset ? { charset: charset.toLowerCase() } : {}) };
}

/** Decodes a body with the header's charset, else (HTML) a `<meta charset>`, else UTF-8; a cut-off last character is dropped. */
export function decodeText(bytes: Uint8Array, charset: string | undefined, kind: ContentKind, truncated: boolean): string {
  let label = charset;
  if (!label && kind === "html") {
    const head = new TextDecoder("latin1").decode(bytes.subarray(0, 4096));
    label = head.match(/<meta[^>]+charset\s*=\s*["']?([\w-]+)/i)?.[1]?.toLowerCase();
  }
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder((label ?? "utf-8") as ConstructorParameters<typeof TextDecoder>[0]);
  } catch {
    decoder = new TextDecoder("utf-8");
  }
  const text = decoder.decode(bytes);
  return truncated ? text.replace(/\uFFFD+$/, "") : text;
}
