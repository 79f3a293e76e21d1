/**
 * Readable text from a fetched body: HTML → the main content as Markdown (Readability on a linkedom DOM, then
 * Turndown), PDF → its text (unpdf), plain text, Markdown and JSON as they are. The libraries load on first use.
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

/** Structural bits of a page that are never its content (not `form`: ASP.NET pages wrap everything in one). */
const NOISE = "script, style, noscript, template, iframe, object, embed, svg, canvas, button, input, select, textarea, dialog";
/** Page furniture, removed before Readability looks for the article (it keeps a bare `<nav>` of a short page). */
const FURNITURE = "nav, aside, footer, body > header, [role=navigation], [role=banner], [role=contentinfo], [role=complementary], [aria-hidden=true]";

interface Element {
  getAttribute(name: string): string | null;
  setAttribute(name: string, value: string): void;
  removeAttribute(name: string): void;
  remove(): void;
}
interface DomDocument {
  title: string;
  querySelector(selector: string): Element | null;
  querySelectorAll(selector: string): Iterable<Element>;
  body: { innerHTML: string } | null;
}

/** Rewrites links and image sources to absolute URLs (against `<base href>` or the page URL); script links lose their href. */
function absolutize(document: DomDocument, pageUrl: string): void {
  let base = pageUrl;
  const baseHref = document.querySelector("base[href]")?.getAttribute("href");
  if (baseHref) {
    try {
      base = new URL(baseHref, pageUrl).href;
    } catch {
      // A broken <base> is ignored.
    }
  }
  for (const [selector, attribute] of [
    ["a[href]", "href"],
    ["img[src]", "src"],
  ] as const) {
    for (const element of document.querySelectorAll(selector)) {
      const value = element.getAttribute(attribute)?.trim() ?? "";
      let absolute: URL | undefined;
      try {
        absolute = new URL(value, base);
      } catch {
        absolute = undefined;
      }
      if (absolute && (absolute.protocol === "http:" || absolute.protocol === "https:" || absolute.protocol === "mailto:")) {
        element.setAttribute(attribute, absolute.href);
      } else {
        element.removeAttribute(attribute);
      }
    }
  }
}

async function markdownConverter() {
  const { default: TurndownService } = await import("turndown");
  const service = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-", emDelimiter: "*" });
  service.remove(["script", "style", "noscript", "iframe", "button", "input", "select", "textarea"] as never);
  // Images only when they say something and point somewhere: `![alt](https://…)`; data: URIs and decorations go.
  service.addRule("images", {
    filter: "img",
    replacement: (_content, node) => {
      const element = node as unknown as Element;
      const alt = (element.getAttribute("alt") ?? "").replace(/\s+/g, " ").trim();
      const src = element.getAttribute("src") ?? "";
      return alt && /^https?:/i.test(src) ? `![${alt.replace(/[[\]]/g, "")}](${src})` : "";
    },
  });
  // A link without a usable target (a script link, a bare `#`) is just its text.
  service.addRule("deadLinks", {
    filter: (node) => node.nodeName === "A" && !(node as unknown as Element).getAttribute("href"),
    replacement: (content) => content,
  });
  return service;
}

function tidyMarkdown(markdown: string): string {
  return markdown
    .replace(/[ \t]+$/gm, "")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

/** The main content of an HTML page as Markdown, with the page's title. */
export async function htmlToMarkdown(html: string, pageUrl: string): Promise<{ title: string; content: string }> {
  const [{ parseHTML }, { Readability }] = await Promise.all([import("linkedom"), import("@mozilla/readability")]);
  const parse = (): DomDocument => {
    const { document } = parseHTML(html) as unknown as { document: DomDocument };
    absolutize(document, pageUrl);
    for (const element of [...document.querySelectorAll(`${NOISE}, ${FURNITURE}`)]) element.remove();
    return document;
  };
  const turndown = await markdownConverter();
  const document = parse();
  const pageTitle = document.title.replace(/\s+/g, " ").trim();
  let article: { title?: string | null; content?: string | null } | null = null;
  try {
    article = new Readability(document as never, { charThreshold: 250 }).parse();
  } catch {
    article = null;
  }
  let body = article?.content ?? "";
  let content = body ? tidyMarkdown(turndown.turndown(body)) : "";
  if (content === "") {
    // No article found: the whole body (without the furniture).
    body = parse().body?.innerHTML ?? "";
    content = body ? tidyMarkdown(turndown.turndown(body)) : "";
  }
  const title = (article?.title ?? "").replace(/\s+/g, " ").trim() || pageTitle;
  return { title, content };
}

/** The text of a PDF, pages separated by blank lines, and its title from the document info when it has one. */
export async function pdfToText(bytes: Uint8Array): Promise<{ title: string; content: string; pages: number }> {
  const { getDocumentProxy, extractText, getMeta } = await import("unpdf");
  // Only errors reach the console (pdf.js warns about every damaged file otherwise).
  const pdf = await getDocumentProxy(bytes, { verbosity: 0 });
  try {
    const { totalPages, text } = await extractText(pdf, { mergePages: false });
    let title = "";
    try {
      const meta = await getMeta(pdf);
      const value: unknown = meta.info?.Title;
      title = typeof value === "string" ? value.trim() : "";
    } catch {
      // No readable metadata.
    }
    const content = text
      .map((page) => page.replace(/[ \t]+\n/g, "\n").trim())
      .filter((page) => page !== "")
      .join("\n\n");
    return { title, content, pages: totalPages };
  } finally {
    await pdf.loadingTask.destroy().catch(() => undefined);
  }
}
