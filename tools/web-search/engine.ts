/** The search-engine contract of `service:web_search`, and what the engines share (HTTP, text clean-up). */
import type { FetchFunction } from "../../core/sdk/index.ts";

export const ENGINE_NAMES = ["searxng", "brave", "tavily", "exa"] as const;
export type EngineName = (typeof ENGINE_NAMES)[number];

export interface SearchResult {
  title: string;
  url: string;
  snippet: string;
  /** Publication date or age as the engine gave it, when it did. */
  published?: string;
}

export interface SearchOptions {
  /** Results wanted (already capped to the engine's `maxResults`). */
  maxResults: number;
  /** Per-result snippet cap in characters (the tool cuts snippets to it again afterwards). */
  snippetChars: number;
  /** Hosts the results must be on (subdomains included); empty = any. */
  includeDomains: string[];
  /** Hosts the results must not be on. */
  excludeDomains: string[];
  /** ISO 3166-1 alpha-2 country code (upper case) from the request's `user_location`. */
  country?: string;
}

export interface EngineContext {
  /** The gateway's policy-checked fetch. */
  fetch: FetchFunction;
  /** Aborted on the tool's time limit or when the request goes away. */
  signal: AbortSignal;
  /** The operator's `base_url`, or the engine's default; no trailing slash. */
  baseUrl: string;
  apiKey?: string;
}

export interface SearchEngine {
  readonly name: EngineName;
  /** Public API address; undefined when the operator must give `base_url` (self-hosted SearXNG). */
  readonly defaultBaseUrl?: string;
  readonly needsApiKey: boolean;
  /** USD for one engine request asking for `maxResults` results, when the operator sets no `price_per_request`. */
  defaultPrice(maxResults: number): number;
  /** Most results one request can ask for. */
  readonly maxResults: number;
  search(query: string, options: SearchOptions, ctx: EngineContext): Promise<{ results: SearchResult[] }>;
}

/** Sends one engine request and parses its JSON body; non-2xx and non-JSON replies throw naming the engine. */
export async function engineJson(engine: EngineName, ctx: EngineContext, url: string, init: RequestInit): Promise<unknown> {
  const response = await ctx.fetch(url, { ...init, signal: ctx.signal });
  const text = await response.text();
  if (!response.ok) {
    const detail = oneLine(text).slice(0, 200);
    throw new Error(`${engine}: HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}${detail ? `: ${detail}` : ""}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new Error(`${engine}: the reply is not JSON${engine === "searxng" ? " (is format=json enabled in the SearXNG settings.yml?)" : ""}`);
  }
}

/** A record's field as a trimmed string ("" when absent or not a string). */
export function str(record: unknown, key: string): string {
  if (typeof record !== "object" || record === null) return "";
  const value = (record as Record<string, unknown>)[key];
  return typeof value === "string" ? value.trim() : "";
}

/** An array field of a record ([] when absent). */
export function list(record: unknown, key: string): unknown[] {
  if (typeof record !== "object" || record === null) return [];
  const value = (record as Record<string, unknown>)[key];
  return Array.isArray(value) ? value : [];
}

export function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " ", "#39": "'" };

/** Strips HTML tags and decodes the common entities (Brave puts `<strong>` in descriptions). */
export function plainText(html: string): string {
  const text = html.replace(/<[^>]*>/g, "").replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+[0-9]*);/gi, (whole, name: string) => {
    const lower = name.toLowerCase();
    if (lower.startsWith("#x") || lower.startsWith("#")) {
      const code = lower.startsWith("#x") ? Number.parseInt(lower.slice(2), 16) : Number.parseInt(lower.slice(1), 10);
      return Number.isInteger(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[lower] ?? whole;
  });
  return oneLine(text);
}

/**
 * `query site:host` for a single allowed host and `-site:host` per excluded host, for engines without domain filters
 * (SearXNG, Brave), when the query stays within `maxLength` characters and 50 words (Brave's limits); otherwise the
 * query as it is (the tool filters the results either way).
 */
export function withSiteOperators(query: string, options: SearchOptions, maxLength = 400): string {
  const parts = [query];
  if (options.includeDomains.length === 1) parts.push(`site:${options.includeDomains[0]}`);
  for (const host of options.excludeDomains) parts.push(`-site:${host}`);
  const full = parts.join(" ");
  return full.length <= maxLength && full.split(/\s+/).length <= 50 ? full : query;
}

/** Joins a base URL and a path. */
export function endpoint(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/\/+$/, "")}${path}`;
}
