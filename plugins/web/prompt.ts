/**
 * What the `web` plugin puts before the model: the search prompt (the reference's default, paraphrased: the date of
 * the search, use the results, cite them as Markdown links named by the source's domain; `search_prompt` replaces
 * it) and the results, numbered, each with its title, URL, date when known and snippet.
 */
export interface SearchHit {
  title: string;
  url: string;
  snippet: string;
  published?: string;
}

export function defaultSearchPrompt(date: string): string {
  return [
    `A web search was conducted on ${date}. Incorporate the following web search results into your response.`,
    "",
    "IMPORTANT: Cite them using markdown links named using the domain of the source.",
    "Example: [nytimes.com](https://nytimes.com/some-page).",
  ].join("\n");
}

export function searchContext(prompt: string, query: string, hits: readonly SearchHit[]): string {
  const lines = [prompt, "", `Search query: ${query}`, ""];
  if (hits.length === 0) lines.push("The search returned no results.");
  hits.forEach((hit, index) => {
    lines.push(`[${index + 1}] ${hit.title}`, `URL: ${hit.url}`);
    if (hit.published) lines.push(`Published: ${hit.published}`);
    if (hit.snippet) lines.push(hit.snippet);
    lines.push("");
  });
  return lines.join("\n").trimEnd();
}

/** The results of a `service:web_search` call (its `{query, results}`), keeping only well-formed entries. */
export function hitsOf(result: unknown): SearchHit[] {
  const results = (result as { results?: unknown } | null)?.results;
  if (!Array.isArray(results)) return [];
  return results.flatMap((item) => {
    const { title, url, snippet, published } = (item ?? {}) as Record<string, unknown>;
    if (typeof url !== "string" || url === "") return [];
    const hit: SearchHit = { title: typeof title === "string" && title !== "" ? title : url, url, snippet: typeof snippet === "string" ? snippet : "" };
    if (typeof published === "string") hit.published = published;
    return [hit];
  });
}
