/**
 * URL citations for the loop's answer (issue: "the final answer carries URL citations in each format's citation
 * shape"): where the model's text names a page a web search returned — a bare URL or a Markdown link to it — the text
 * part gets a canonical `url_citation` annotation over that span (Responses' shape; each format converts it).
 */

export interface Source {
  url: string;
  title: string;
  snippet?: string;
}

export interface UrlCitation {
  type: "url_citation";
  url: string;
  title: string;
  start_index: number;
  end_index: number;
  content?: string;
}

/** The sources a finished server-tool result offers (a search's `{results: [{url, title, snippet}]}`, a fetched page's `{url, title}`). */
export function sourcesOf(result: unknown): Source[] {
  const page = (result ?? {}) as { url?: unknown; title?: unknown; results?: unknown };
  if (typeof page.url === "string" && page.url !== "") return [{ url: page.url, title: typeof page.title === "string" ? page.title : page.url }];
  const results = page.results;
  if (!Array.isArray(results)) return [];
  const out: Source[] = [];
  for (const item of results) {
    const { url, title, snippet } = (item ?? {}) as { url?: unknown; title?: unknown; snippet?: unknown };
    if (typeof url !== "string" || url === "") continue;
    const source: Source = { url, title: typeof title === "string" ? title : url };
    if (typeof snippet === "string") source.snippet = snippet;
    out.push(source);
  }
  return out;
}

/** Citations of `sources` in `text`, in text order; a Markdown link `[label](url)` is cited over the whole link. */
export function citationsIn(text: string, sources: readonly Source[]): UrlCitation[] {
  const out: UrlCitation[] = [];
  const taken: Array<[number, number]> = [];
  for (const source of sources) {
    for (let at = text.indexOf(source.url); at !== -1; at = text.indexOf(source.url, at + source.url.length)) {
      const [start, end] = linkSpan(text, at, source.url.length);
      if (taken.some(([s, e]) => start < e && s < end)) continue;
      taken.push([start, end]);
      const citation: UrlCitation = { type: "url_citation", url: source.url, title: source.title, start_index: start, end_index: end };
      if (source.snippet !== undefined) citation.content = source.snippet;
      out.push(citation);
    }
  }
  return out.sort((a, b) => a.start_index - b.start_index);
}

/** The span of the Markdown link around a URL at `at` (`[label](url)`), or the URL's own span. */
function linkSpan(text: string, at: number, length: number): [number, number] {
  const end = at + length;
  if (text[at - 1] === "(" && text[at - 2] === "]" && text[end] === ")") {
    const open = text.lastIndexOf("[", at - 2);
    if (open !== -1 && !text.slice(open, at - 2).includes("\n")) return [open, end + 1];
  }
  return [at, end];
}
