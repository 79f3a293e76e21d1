/**
 * An HTML page's main content as Markdown, inside a document worker: its shape checked against the `documents.html`
 * caps first (html-shape.ts), then Readability on a linkedom DOM, then Turndown. The libraries load on first use.
 */
import type { HtmlCaps } from "../../config/documents.ts";
import { failure } from "./failures.ts";
import { measureHtml } from "./html-shape.ts";
import type { DocumentResult, HtmlMarkdown } from "./types.ts";

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

export async function readHtml(html: string, pageUrl: string, caps: HtmlCaps): Promise<DocumentResult<HtmlMarkdown>> {
  const shape = measureHtml(html, caps);
  if ("ok" in shape) return shape;
  // linkedom builds no body around bare text or a fragment (and then fails on `document.head`): give it one.
  const source = shape.hasBody ? html : `<!doctype html><html><head></head><body>${html}</body></html>`;
  try {
    return { ok: true, ...(await toMarkdown(source, pageUrl)) };
  } catch {
    // A library's failure on a page within the caps: said plainly, never as its exception text.
    return failure("unreadable", "could not be converted to text (its HTML is too malformed)");
  }
}

async function toMarkdown(html: string, pageUrl: string): Promise<HtmlMarkdown> {
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
