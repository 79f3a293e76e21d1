/**
 * The `documents` section of the config file (README "Caps on heavy work"): how PDFs and HTML pages are read off the
 * event loop (core/jobs/documents/) and the caps on each. Kept apart from file-schema.ts like routing-limits.ts.
 */
import { Type, type Static } from "@sinclair/typebox";
import { Defaulted, deepFreeze, resolveDefaults } from "./defaults.ts";

const MIB = 1024 * 1024;

/**
 * Config file `documents`. Defaults: above what real documents need (a 2,000-page book, a long article's few thousand
 * nodes), below what freezes or swells a worker (a 20,000-page PDF, a stream inflating to gigabytes, 100,000 nested
 * elements).
 */
export const DocumentsFileSchema = Type.Object(
  {
    /** Worker threads reading documents at once; more wait in a queue. */
    workers: Defaulted(Type.Integer({ minimum: 1, maximum: 64 }), 2),
    /** A document still being read after this long has its worker terminated. */
    timeout_ms: Defaulted(Type.Integer({ minimum: 100, maximum: 600_000 }), 30_000),
    /** Growth of the gateway's resident memory, while documents are read, at which the longest-running read is stopped. */
    max_memory_bytes: Defaulted(Type.Integer({ minimum: 16 * MIB }), 512 * MIB),
    pdf: Defaulted(
      Type.Object(
        {
          max_pages: Defaulted(Type.Integer({ minimum: 1 }), 2_000),
          /** Bytes the PDF's compressed streams decode to, summed (images, which text extraction never decodes, apart). */
          max_decoded_bytes: Defaulted(Type.Integer({ minimum: 1024 }), 64 * MIB),
          max_chars: Defaulted(Type.Integer({ minimum: 1 }), 2_000_000),
        },
        { additionalProperties: false },
      ),
      {},
    ),
    html: Defaulted(
      Type.Object(
        {
          max_depth: Defaulted(Type.Integer({ minimum: 8, maximum: 10_000 }), 512),
          /** Elements, text runs and comments of the page. */
          max_nodes: Defaulted(Type.Integer({ minimum: 100 }), 200_000),
        },
        { additionalProperties: false },
      ),
      {},
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

export function toDocumentsConfig(section: Static<typeof DocumentsFileSchema> | undefined): DocumentsConfig {
  const d = resolveDefaults(DocumentsFileSchema, section);
  return {
    workers: d.workers,
    timeoutMs: d.timeout_ms,
    maxMemoryBytes: d.max_memory_bytes,
    pdf: { maxPages: d.pdf.max_pages, maxDecodedBytes: d.pdf.max_decoded_bytes, maxChars: d.pdf.max_chars },
    html: { maxDepth: d.html.max_depth, maxNodes: d.html.max_nodes },
  };
}

/** What a config without a `documents` section gets. */
export const DEFAULT_DOCUMENTS: DocumentsConfig = deepFreeze(toDocumentsConfig(undefined));
