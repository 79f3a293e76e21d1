/**
 * Anthropic text-block `citations` → canonical text annotations. A web search citation (`web_search_result_location`
 * `{url, title, cited_text}`) becomes the canonical `url_citation` (Responses' shape, which every format renders its
 * own way), so a chat or Responses client of Anthropic's native search gets ordinary URL citations. Other kinds
 * (document `char_location`, `page_location`, …) have no canonical form and stay as Anthropic sent them.
 */
import type { UrlCitation } from "../../core/sdk/index.ts";
import { isPlainObject as isRecord } from "../../core/sdk/provider.ts";

/**
 * The annotation of one citation. `cited_text` is the page's words (kept as `content`), not the answer's: the span is
 * where the block quotes them when it does, else the whole block (Anthropic cites a block as a whole).
 */
function annotationOf(citation: unknown, text: string): unknown {
  if (!isRecord(citation) || citation.type !== "web_search_result_location" || typeof citation.url !== "string") return citation;
  const cited = typeof citation.cited_text === "string" ? citation.cited_text : "";
  const at = cited === "" ? -1 : text.indexOf(cited);
  const out: UrlCitation = {
    type: "url_citation",
    url: citation.url,
    title: typeof citation.title === "string" ? citation.title : "",
    start_index: at === -1 ? 0 : at,
    end_index: at === -1 ? text.length : at + cited.length,
  };
  if (cited !== "") out.content = cited;
  return out;
}

/** Canonical annotations of a text block with `text` (in order); an empty list stays empty. */
export function annotationsOf(citations: readonly unknown[], text: string): unknown[] {
  return citations.map((citation) => annotationOf(citation, text));
}
