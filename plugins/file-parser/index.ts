/**
 * file-parser: PDFs sent as files (chat `file` parts, Responses `input_file`, Messages `document` blocks; by data URL
 * or http(s) URL) reach models that cannot read files as their text. Engine `pdf-text` extracts the text (unpdf)
 * and puts it in place of the file; `native` passes the file through to models that read PDFs themselves (model
 * config `input_modalities` lists `file`). Without an engine in the request, `native` is used when every endpoint of
 * the requested models reads files, `pdf-text` otherwise. On by default; it acts only on requests that carry PDFs.
 * The extracted text comes back as a file annotation on chat and Responses replies (annotations.ts), so a client
 * that sends it back with its next request skips the parsing.
 */
import { Type } from "@sinclair/typebox";
import type { FilePart, Message, Part } from "../../core/sdk/index.ts";
import type { CanonicalRequest } from "../../core/sdk/index.ts";
import { definePlugin } from "../../core/sdk/index.ts";
import type { PluginContext } from "../../core/sdk/index.ts";
import { annotateParts, annotateStream, fileAnnotation, fileHash, resentTexts, type FileAnnotation } from "./annotations.ts";
import { isPdf, nameOf, pdfBytes, pdfText } from "./pdf-source.ts";

export const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;
const ANNOTATIONS = "annotations";
/** Peer engine names we have no service for: read with `pdf-text` instead, with a warning. */
const PEER_ENGINES = ["mistral-ocr", "cloudflare-ai"] as const;

const OptionsSchema = Type.Object(
  {
    pdf: Type.Optional(
      Type.Object(
        { engine: Type.Optional(Type.Union([Type.Literal("pdf-text"), Type.Literal("native"), ...PEER_ENGINES.map((e) => Type.Literal(e))])) },
        { additionalProperties: false },
      ),
    ),
    /** Largest PDF read, in bytes (data URL decoded, or downloaded). */
    max_bytes: Type.Optional(Type.Integer({ minimum: 1024, maximum: 50 * 1024 * 1024 })),
  },
  { additionalProperties: false },
);

interface Options {
  pdf?: { engine?: "pdf-text" | "native" | (typeof PEER_ENGINES)[number] };
  max_bytes?: number;
}

/** Whether every endpoint of every model the request names reads PDFs natively. */
function readsFiles(ctx: PluginContext, request: CanonicalRequest): boolean {
  const ids = [request.model, ...request.models].filter((id): id is string => typeof id === "string");
  return ids.length > 0 && ids.every((id) => {
    const endpoints = ctx.catalog.model(id)?.endpoints ?? [];
    return endpoints.length > 0 && endpoints.every((e) => e.inputModalities?.includes("file") === true);
  });
}

function engineOf(ctx: PluginContext, request: CanonicalRequest): "pdf-text" | "native" {
  const asked = (ctx.options as Options).pdf?.engine;
  if (asked === "pdf-text" || asked === "native") return asked;
  if (asked !== undefined) {
    request.warnings.push({ code: "approximated", field: "plugins.file-parser.pdf.engine", message: `PDF engine "${asked}" is not available on this gateway; pdf-text was used` });
    return "pdf-text";
  }
  return readsFiles(ctx, request) ? "native" : "pdf-text";
}

/** The text that stands for a file in the prompt. */
function filePrompt(name: string | undefined, text: string): string {
  const body = text === "" ? "(This PDF has no extractable text: it may consist of scanned images.)" : text;
  return `<file${name ? ` name="${name.replaceAll('"', "'")}"` : ""}>\n${body}\n</file>`;
}

interface Parsed {
  hash: string;
  name: string | undefined;
  text: string;
  pages: number | undefined;
}

async function parseAll(ctx: PluginContext, files: readonly FilePart[]): Promise<Map<FilePart, Parsed>> {
  const resent = resentTexts(ctx.request);
  const maxBytes = (ctx.options as Options).max_bytes ?? DEFAULT_MAX_BYTES;
  // One parse per distinct file, even when a conversation carries it several times.
  const byHash = new Map<string, Promise<Parsed>>();
  const parsed = new Map<FilePart, Parsed>();
  await Promise.all(
    files.map(async (part) => {
      const hash = fileHash(part.data);
      const name = nameOf(part);
      let pending = byHash.get(hash);
      if (!pending) {
        const known = resent.get(hash);
        pending = known !== undefined ? Promise.resolve({ hash, name, text: known, pages: undefined }) : pdfBytes(ctx, part, maxBytes).then(async (bytes) => ({ hash, name, ...(await pdfText(ctx, bytes, name)) }));
        byHash.set(hash, pending);
      }
      parsed.set(part, await pending);
    }),
  );
  return parsed;
}

export default definePlugin({
  id: "file-parser",
  description: "Reads PDFs for models that cannot (text extraction), or passes them through to models that can.",
  // Before context-compression (900), which must count the extracted text rather than the file.
  priority: 100,
  enabledByDefault: true,
  // Most requests carry no PDF: those never see this plugin.
  appliesTo: (request) => request.messages.some((m) => m.parts.some((p) => p.type === "file" && isPdf(p))),
  optionsSchema: OptionsSchema,
  hooks: {
    async pre(ctx) {
      const request = ctx.request;
      const files = request.messages.flatMap((m) => m.parts.filter((p): p is FilePart => p.type === "file" && isPdf(p)));
      if (files.length === 0) return;
      const engine = engineOf(ctx, request);
      if (engine === "native") {
        ctx.report({ engine, files: files.length });
        return;
      }
      const parsed = await parseAll(ctx, files);
      const swap = (part: Part): Part => {
        const found = part.type === "file" ? parsed.get(part) : undefined;
        return found ? { type: "text", text: filePrompt(found.name, found.text) } : part;
      };
      const messages: Message[] = request.messages.map((m) => (m.parts.some((p) => parsed.has(p as FilePart)) ? { ...m, parts: m.parts.map(swap) } : m));
      ctx.request = { ...request, messages };
      const distinct = new Map([...parsed.values()].map((p) => [p.hash, p]));
      const annotations: FileAnnotation[] = [...distinct.values()].map((p) => fileAnnotation(p.hash, p.name, p.text));
      // A Messages reply has no place for file annotations (its citations are another shape): not offered there.
      if (request.format !== "messages") ctx.state.set(ANNOTATIONS, annotations);
      const fresh = [...distinct.values()].filter((p) => p.pages !== undefined);
      ctx.report({
        engine,
        files: distinct.size,
        parsed: fresh.length,
        reused: distinct.size - fresh.length,
        pages: fresh.reduce((sum, p) => sum + (p.pages ?? 0), 0),
      });
    },
    post(ctx, response) {
      const annotations = ctx.state.get(ANNOTATIONS) as FileAnnotation[] | undefined;
      return annotations ? { ...response, parts: annotateParts(response.parts, annotations) } : response;
    },
    stream(ctx, events) {
      const annotations = ctx.state.get(ANNOTATIONS) as FileAnnotation[] | undefined;
      return annotations ? annotateStream(events, annotations) : events;
    },
  },
});
