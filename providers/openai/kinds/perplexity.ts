/**
 * Perplexity (`api.perplexity.ai`): the sources of an answer come beside it, as `citations` (URLs) and
 * `search_results` (`{title, url, date, snippet}`), on the completion and on stream chunks, and the text cites them
 * as `[1]`, `[2]`…; they become canonical `url_citation` annotations on the text (each marker a citation over its
 * span; a source never marked a citation at 0–0), which every format shows in its own shape (chat
 * `annotations`, Responses `output_text.annotations`, Messages `citations`). Its usage counts searches
 * (`num_search_queries` → `web_search_requests`) and says what it cost (`cost.total_cost`).
 */
import type { Part, StreamEvent, Usage } from "../../../core/sdk/index.ts";
import { isPlainObject } from "../../../core/sdk/provider.ts";
import type { ReplyQuirk } from "../quirks.ts";
import type { ChatCompletion } from "../wire.ts";
import { type KindSpec, useMaxTokens } from "./shared.ts";

interface Source {
  url: string;
  title: string;
  snippet?: string;
}

/** The sources a completion or chunk names: search results first (they have titles), else the bare citations. */
function sourcesOf(chunk: ChatCompletion & { citations?: unknown; search_results?: unknown }): Source[] | undefined {
  if (Array.isArray(chunk.search_results) && chunk.search_results.length > 0) {
    const out: Source[] = [];
    for (const r of chunk.search_results as unknown[]) {
      if (!isPlainObject(r) || typeof r.url !== "string") continue;
      const source: Source = { url: r.url, title: typeof r.title === "string" && r.title !== "" ? r.title : r.url };
      if (typeof r.snippet === "string" && r.snippet !== "") source.snippet = r.snippet;
      out.push(source);
    }
    return out;
  }
  if (Array.isArray(chunk.citations) && chunk.citations.length > 0) {
    return (chunk.citations as unknown[]).filter((u): u is string => typeof u === "string").map((url) => ({ url, title: url }));
  }
  return undefined;
}

/** `[n]` markers in the text → citations of source n over the marker; unmarked sources at 0–0. */
export function perplexityCitations(text: string, sources: readonly Source[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const cited = new Set<number>();
  for (const match of text.matchAll(/\[(\d{1,3})\]/g)) {
    const n = Number(match[1]) - 1;
    const source = sources[n];
    if (source === undefined) continue;
    cited.add(n);
    out.push(citation(source, match.index, match.index + match[0].length));
  }
  sources.forEach((source, n) => {
    if (!cited.has(n)) out.push(citation(source, 0, 0));
  });
  return out;
}

function citation(source: Source, start: number, end: number): Record<string, unknown> {
  const c: Record<string, unknown> = { type: "url_citation", url: source.url, title: source.title, start_index: start, end_index: end };
  if (source.snippet !== undefined) c.content = source.snippet;
  return c;
}

/** Searches and the charged cost into the usage. */
export function perplexityUsage(usage: Usage): Usage {
  const raw = (usage.raw ?? {}) as { num_search_queries?: unknown; cost?: unknown };
  let out = usage;
  if (typeof raw.num_search_queries === "number" && raw.num_search_queries > 0) {
    out = { ...out, serverTools: { ...out.serverTools, web_search_requests: raw.num_search_queries } };
  }
  const cost = isPlainObject(raw.cost) ? raw.cost.total_cost : raw.cost;
  if (typeof cost === "number" && cost >= 0) out = { ...out, upstreamCost: cost };
  return out;
}

function perplexityReply(): ReplyQuirk {
  let sources: Source[] | undefined;
  return {
    chunk(chunk) {
      sources = sourcesOf(chunk) ?? sources;
    },
    usage: perplexityUsage,
    response(response) {
      if (sources === undefined) return;
      const text = response.parts.find((p): p is Extract<Part, { type: "text" }> => p.type === "text");
      if (text !== undefined) text.annotations = [...(text.annotations ?? []), ...perplexityCitations(text.text, sources)];
    },
    async *events(events) {
      const texts = new Map<string, string>();
      for await (const event of events) {
        if (event.type === "text-delta") texts.set(event.id, (texts.get(event.id) ?? "") + event.delta);
        if (event.type === "text-end" && sources !== undefined) {
          const annotations = [...(event.annotations ?? []), ...perplexityCitations(texts.get(event.id) ?? "", sources)];
          yield { ...event, annotations } satisfies StreamEvent;
        } else yield event;
      }
    },
  };
}

export const perplexity: KindSpec = {
  description: "Perplexity",
  defaultBaseUrl: "https://api.perplexity.ai",
  requiresKey: true,
  quirks: { request: (body, call) => useMaxTokens(body, call), reply: perplexityReply },
};
