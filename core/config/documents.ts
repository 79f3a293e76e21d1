/**
 * The `documents` section of the config file (README "Caps on heavy work"): how PDFs and HTML pages are read off the
 * event loop (core/jobs/documents/) and the caps on each. Kept apart from file-schema.ts like routing-limits.ts.
 */
import { Type, type Static } from "@sinclair/typebox";

const MIB = 1024 * 1024;

export const DocumentsFileSchema = Type.Object(
  {
    /** Worker threads reading documents at once; more wait in a queue. */
    workers: Type.Optional(Type.Integer({ minimum: 1, maximum: 64 })),
    /** A document still being read after this long has its worker terminated. */
    timeout_ms: Type.Optional(Type.Integer({ minimum: 100, maximum: 600_000 })),
    /** Growth of the gateway's resident memory, while documents are read, at which the longest-running read is stopped. */
    max_memory_bytes: Type.Optional(Type.Integer({ minimum: 16 * MIB })),
    pdf: Type.Optional(
      Type.Object(
        {
          max_pages: Type.Optional(Type.Integer({ minimum: 1 })),
          /** Bytes the PDF's compressed streams decode to, summed (images, which text extraction never decodes, apart). */
          max_decoded_bytes: Type.Optional(Type.Integer({ minimum: 1024 })),
          max_chars: Type.Optional(Type.Integer({ minimum: 1 })),
        },
        { additionalProperties: false },
      ),
    ),
    html: Type.Optional(
      Type.Object(
        {
          max_depth: Type.Optional(Type.Integer({ minimum: 8, maximum: 10_000 })),
          /** Elements, text runs and comments of the page. */
          max_nodes: Type.Optional(Type.Integer({ minimum: 100 })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

export interface PdfCaps {
  maxPages: number;
  maxDecodedBytes: number;
  maxChars: number;
}

export interface HtmlCaps {
  maxDepth: number;
  maxNodes: number;
}

export interface DocumentsConfig {
  workers: number;
  timeoutMs: number;
  maxMemoryBytes: number;
  pdf: PdfCaps;
  html: HtmlCaps;
}

/**
 * Defaults: above what real documents need (a 2,000-page book, a long article's few thousand nodes), below what
 * freezes or swells a worker (a 20,000-page PDF, a stream inflating to gigabytes, 100,000 nested elements).
 */
export const DEFAULT_DOCUMENTS: DocumentsConfig = Object.freeze({
  workers: 2,
  timeoutMs: 30_000,
  maxMemoryBytes: 512 * MIB,
  pdf: Object.freeze({ maxPages: 2_000, maxDecodedBytes: 64 * MIB, maxChars: 2_000_000 }),
  html: Object.freeze({ maxDepth: 512, maxNodes: 200_000 }),
});

export function toDocumentsConfig(file: Static<typeof DocumentsFileSchema> | undefined): DocumentsConfig {
  const d = DEFAULT_DOCUMENTS;
  return {
    workers: file?.workers ?? d.workers,
    timeoutMs: file?.timeout_ms ?? d.timeoutMs,
    maxMemoryBytes: file?.max_memory_bytes ?? d.maxMemoryBytes,
    pdf: {
      maxPages: file?.pdf?.max_pages ?? d.pdf.maxPages,
      maxDecodedBytes: file?.pdf?.max_decoded_bytes ?? d.pdf.maxDecodedBytes,
      maxChars: file?.pdf?.max_chars ?? d.pdf.maxChars,
    },
    html: { maxDepth: file?.html?.max_depth ?? d.html.maxDepth, maxNodes: file?.html?.max_nodes ?? d.html.maxNodes },
  };
}
