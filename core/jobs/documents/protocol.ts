/** Messages between the document pool (gateway thread) and a document worker. Plain data: they cross threads. */
import type { HtmlCaps, PdfCaps } from "../../config/documents.ts";
import type { DocumentResult, HtmlMarkdown, PdfText } from "./types.ts";

export type DocumentJob = { kind: "pdf"; bytes: Uint8Array; caps: PdfCaps } | { kind: "html"; html: string; pageUrl: string; caps: HtmlCaps };

export type DocumentAnswer = DocumentResult<PdfText> | DocumentResult<HtmlMarkdown>;
