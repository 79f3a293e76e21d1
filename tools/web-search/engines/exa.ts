/** Exa: `POST {base_url}/search` JSON with `x-api-key` → `results[].{url,title,highlights|text}`. */
import { type SearchEngine, endpoint, engineJson, list, str } from "../engine.ts";

export const exa: SearchEngine = {
  name: "exa",
  defaultBaseUrl: "https://api.exa.ai",
  needsApiKey: true,
  // Exa's list price for an auto search: $0.007 with up to 10 results, then $0.001 per further result.
  defaultPrice: (maxResults) => 0.007 + 0.001 * Math.max(0, maxResults - 10),
  maxResults: 25,
  async search(query, options, ctx) {
    const request: Record<string, unknown> = {
      query,
      type: "auto",
      numResults: options.maxResults,
      contents: { highlights: { maxCharacters: options.snippetChars } },
    };
    if (options.includeDomains.length > 0) request.includeDomains = options.includeDomains;
    if (options.excludeDomains.length > 0) request.excludeDomains = options.excludeDomains;
    if (options.country) request.userLocation = options.country;
    const body = await engineJson("exa", ctx, endpoint(ctx.baseUrl, "/search"), {
      method: "POST",
      headers: { accept: "application/json", "content-type": "application/json", "x-api-key": ctx.apiKey ?? "" },
      body: JSON.stringify(request),
    });
    return {
      results: list(body, "results").map((item) => {
        const highlights = list(item, "highlights").filter((h): h is string => typeof h === "string" && h.trim() !== "");
        // Several excerpts of one page are joined by `[...]` lines.
        const snippet = highlights.length > 0 ? highlights.map((h) => h.trim()).join("\n[...]\n") : str(item, "text");
        const published = str(item, "publishedDate");
        return { title: str(item, "title"), url: str(item, "url"), snippet, ...(published ? { published } : {}) };
      }),
    };
  },
};
