/**
 * `service:web_fetch`: fetches one URL through the gateway's
 * policy-checked fetch and hands the model readable text: `{url, title, content, status: "completed", retrieved_at,
 * status_code, content_type, truncated}`. HTML becomes the page's main content as Markdown, PDF its text; plain text,
 * Markdown and JSON come as they are; other content types are refused. PDFs and HTML are read in the gateway's
 * document workers (`helpers.documents`), under its caps. Failures throw an Error with a short reason (the agent loop
 * gives the model `{status: "failed", error}`), naming the cap when one was passed. Free.
 */
import { STATUS_CODES } from "node:http";
import { type Static, Type } from "@sinclair/typebox";
import { defineTool, domainRefusal, domainRules, parseDomainRules, readCapped } from "../../core/sdk/index.ts";
import type { DocumentFailure, DomainRule, ToolDeclaration } from "../../core/sdk/index.ts";
import { type ContentKind, decodeText, isUntyped, kindOfType, parseContentType, sniffKind } from "./extract.ts";
import { truncateToTokens } from "./tokens.ts";

export const DEFAULT_TIMEOUT_MS = 15_000;
export const DEFAULT_MAX_BYTES = 5 * 1024 * 1024;
export const DEFAULT_MAX_CONTENT_TOKENS = 50_000;
/** Fetches per request whatever `max_uses` says. */
export const HARD_MAX_USES = 50;
export const MAX_REDIRECTS = 10;
export const DEFAULT_USER_AGENT = "Mozilla/5.0 (compatible; inference-gateway-web-fetch/1.0)";

const literals = <T extends string>(values: readonly T[]) => Type.Union(values.map((value) => Type.Literal(value)));
const Domains = Type.Array(Type.String({ minLength: 1, maxLength: 300 }), { maxItems: 50 });

/** The request entry's `parameters`. Other gateways' engine names are accepted here so that declare() can say why not. */
export const parametersSchema = Type.Object(
  {
    engine: Type.Optional(literals(["auto", "service", "native", "exa", "firecrawl", "parallel"])),
    max_uses: Type.Optional(Type.Integer({ minimum: 1 })),
    max_content_tokens: Type.Optional(Type.Integer({ minimum: 1 })),
    allowed_domains: Type.Optional(Domains),
    blocked_domains: Type.Optional(Domains),
  },
  { additionalProperties: false },
);
export type WebFetchParameters = Static<typeof parametersSchema>;

/** The operator's `tools.web_fetch` settings (all optional). */
export const optionsSchema = Type.Object(
  {
    timeout_ms: Type.Optional(Type.Integer({ minimum: 100, maximum: 300_000 })),
    max_bytes: Type.Optional(Type.Integer({ minimum: 1024, maximum: 100 * 1024 * 1024 })),
    user_agent: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
    default_max_content_tokens: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { additionalProperties: false },
);
export type WebFetchOptions = Static<typeof optionsSchema>;

function declare({ parameters, field, helpers }: ToolDeclaration): void {
  const params = parameters as WebFetchParameters;
  const fail = (at: string, message: string): never => {
    throw helpers.error("invalid_request", message, { metadata: { field: at } });
  };
  if (params.engine !== undefined && params.engine !== "auto" && params.engine !== "service") {
    fail(`${field}.parameters.engine`, `service:web_fetch: engine "${params.engine}" is not supported on this gateway; omit engine or use "auto" or "service"`);
  }
  for (const key of ["allowed_domains", "blocked_domains"] as const) {
    const list = params[key];
    const { badIndex } = parseDomainRules(list);
    if (badIndex !== undefined) fail(`${field}.parameters.${key}[${badIndex}]`, `service:web_fetch: "${list?.[badIndex]}" is not a domain name`);
  }
}

/** The model's `url`: http(s) only; a bare `example.com/page` gets `https://`. */
function parseUrl(value: unknown): URL {
  if (typeof value !== "string" || value.trim() === "") throw new Error("invalid url: url must be a non-empty string");
  const text = value.trim();
  const withScheme = /^[a-z][a-z0-9+.-]*:/i.test(text) ? text : `https://${text}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new Error(`invalid url: ${text}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error(`invalid url: only http and https URLs can be fetched (got ${url.protocol})`);
  url.hash = "";
  return url;
}

function checkDomains(url: URL, allowed: readonly DomainRule[], blocked: readonly DomainRule[], redirected: boolean): void {
  const refusal = domainRefusal(url, allowed, blocked, "blocked_domains");
  if (refusal) throw new Error(redirected ? `redirected to ${url.href}: ${refusal}` : refusal);
}

/**
 * A PDF or an HTML page past `max_bytes`: an error, not a cut (a cut PDF is unreadable, and a cut page is a broken
 * tree whose article may lie past the cut; a page that large is rarely one anyone reads).
 */
function tooLarge(kind: "pdf" | "html", size: string, maxBytes: number): Error {
  return new Error(`${kind === "pdf" ? "PDF" : "page"} too large: ${size} (the cap is ${maxBytes} bytes, tools.web_fetch.max_bytes)`);
}

/** A document the workers could not read, or would not: the failure's message names the cap it passed. */
function unreadable(kind: "pdf" | "html", failure: DocumentFailure): Error {
  return new Error(`could not read the ${kind === "pdf" ? "PDF" : "page"}: it ${failure.message}`);
}

function httpError(response: Response): Error {
  const reason = response.statusText || STATUS_CODES[response.status] || "error";
  return new Error(`HTTP ${response.status}: ${reason}`);
}

/** Fetches, following redirects itself so that every hop passes the domain filters (the policy fetch checks addresses). */
async function fetchFollowing(
  start: URL,
  init: RequestInit,
  fetch: (input: string, init?: RequestInit) => Promise<Response>,
  allowed: readonly DomainRule[],
  blocked: readonly DomainRule[],
): Promise<{ response: Response; url: URL }> {
  let url = start;
  for (let hop = 0; ; hop++) {
    const response = await fetch(url.href, { ...init, redirect: "manual" });
    // A fetch that followed redirects anyway reports where it ended.
    if (response.redirected && response.url) {
      url = new URL(response.url);
      checkDomains(url, allowed, blocked, true);
    }
    const location = response.headers.get("location");
    if (response.status < 300 || response.status >= 400 || response.status === 304 || !location) return { response, url };
    await response.body?.cancel().catch(() => undefined);
    if (hop >= MAX_REDIRECTS) throw new Error(`too many redirects (more than ${MAX_REDIRECTS})`);
    let next: URL;
    try {
      next = new URL(location, url);
    } catch {
      throw new Error(`HTTP ${response.status}: redirect to an invalid location`);
    }
    if (next.protocol !== "http:" && next.protocol !== "https:") throw new Error(`redirected to a non-http URL (${next.protocol})`);
    next.hash = "";
    checkDomains(next, allowed, blocked, true);
    url = next;
  }
}

/** A title for bodies that carry none: the file name of the URL, else its host. */
function titleFromUrl(url: URL): string {
  const last = url.pathname.split("/").filter(Boolean).pop();
  if (!last) return url.hostname;
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}

export default defineTool({
  id: "service:web_fetch",
  description:
    "Fetches a web page or document by URL and returns its readable content: HTML pages as Markdown (main content only), PDFs as text, plain text and JSON as they are.",
  argumentsSchema: {
    type: "object",
    properties: { url: { type: "string", description: "The http(s) URL to fetch." } },
    required: ["url"],
    additionalProperties: false,
  },
  parametersSchema,
  optionsSchema,
  usageCounter: "web_fetch_requests",
  declare,
  async run(args, ctx) {
    const params = ctx.parameters as WebFetchParameters;
    const settings = ctx.config as WebFetchOptions;
    const limit = Math.min(params.max_uses ?? HARD_MAX_USES, HARD_MAX_USES);
    if (ctx.previousUses >= limit) {
      throw new Error(`max_uses_exceeded: web fetch may run at most ${limit} time(s) in this request`);
    }
    const requested = parseUrl(args.url);
    const allowed = domainRules(params.allowed_domains);
    const blocked = domainRules(params.blocked_domains);
    checkDomains(requested, allowed, blocked, false);

    const timeoutMs = settings.timeout_ms ?? DEFAULT_TIMEOUT_MS;
    const maxBytes = settings.max_bytes ?? DEFAULT_MAX_BYTES;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = AbortSignal.any([ctx.signal, timeout]);
    const init: RequestInit = {
      method: "GET",
      signal,
      headers: {
        "user-agent": settings.user_agent ?? DEFAULT_USER_AGENT,
        accept: "text/html,application/xhtml+xml,text/markdown;q=0.9,text/plain;q=0.8,application/json;q=0.8,application/pdf;q=0.8,*/*;q=0.1",
      },
    };

    let kind: ContentKind;
    let bytes: Uint8Array;
    let bytesTruncated: boolean;
    let response: Response;
    let finalUrl: URL;
    let charset: string | undefined;
    let mime: string;
    try {
      ({ response, url: finalUrl } = await fetchFollowing(requested, init, ctx.fetch, allowed, blocked));
      if (!response.ok) {
        await response.body?.cancel().catch(() => undefined);
        throw httpError(response);
      }
      ({ mime, charset } = parseContentType(response.headers.get("content-type")));
      const declared = kindOfType(mime);
      if (!declared && !isUntyped(mime)) {
        await response.body?.cancel().catch(() => undefined);
        throw new Error(`unsupported content type ${mime}`);
      }
      const length = Number(response.headers.get("content-length"));
      if ((declared === "pdf" || declared === "html") && Number.isFinite(length) && length > maxBytes) {
        await response.body?.cancel().catch(() => undefined);
        throw tooLarge(declared, `${length} bytes`, maxBytes);
      }
      ({ bytes, truncated: bytesTruncated } = await readCapped(response, maxBytes));
      const sniffed = declared ?? sniffKind(bytes);
      if (!sniffed) throw new Error(`unsupported content type ${mime || "(none)"}`);
      kind = sniffed;
    } catch (error) {
      if (timeout.aborted && !ctx.signal.aborted) throw new Error(`timed out after ${timeoutMs} ms`);
      throw error;
    }
    if ((kind === "pdf" || kind === "html") && bytesTruncated) throw tooLarge(kind, `more than ${maxBytes} bytes`, maxBytes);

    let title: string;
    let content: string;
    if (kind === "pdf") {
      const pdf = await ctx.helpers.documents.pdfText(bytes, { signal: ctx.signal });
      if (!pdf.ok) throw unreadable(kind, pdf);
      title = pdf.title || titleFromUrl(finalUrl);
      content = pdf.content;
    } else {
      const text = decodeText(bytes, charset, kind, bytesTruncated);
      if (kind === "html") {
        const page = await ctx.helpers.documents.htmlMarkdown(text, finalUrl.href, { signal: ctx.signal });
        if (!page.ok) throw unreadable(kind, page);
        title = page.title || titleFromUrl(finalUrl);
        content = page.content;
      } else {
        title = titleFromUrl(finalUrl);
        content = text;
      }
    }

    const maxTokens = params.max_content_tokens ?? settings.default_max_content_tokens ?? DEFAULT_MAX_CONTENT_TOKENS;
    const cut = await truncateToTokens(content, maxTokens);
    return {
      url: requested.href,
      ...(finalUrl.href !== requested.href ? { final_url: finalUrl.href } : {}),
      title,
      content: cut.text,
      status: "completed",
      retrieved_at: new Date(ctx.helpers.now()).toISOString(),
      status_code: response.status,
      content_type: mime || kind,
      truncated: bytesTruncated || cut.truncated,
    };
  },
});
