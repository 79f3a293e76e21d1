/** SearXNG (self-hosted): `GET {base_url}/search?q=…&format=json` → `results[].{url,title,content}` (format=json must be enabled in settings.yml). */
import { type SearchEngine, endpoint, engineJson, list, str, withSiteOperators } from "../engine.ts";

export const searxng: SearchEngine = {
  name: "searxng",
  needsApiKey: false,
  defaultPrice: () => 0,
  // One page (~20 results); SearXNG has no count parameter.
  maxResults: 25,
  async search(query, options, ctx) {
    const params = new URLSearchParams({ q: withSiteOperators(query, options), format: "json" });
    const headers: Record<string, string> = { accept: "application/json" };
    // A SearXNG behind a token-checking proxy: the key goes as a bearer token when the operator sets one.
    if (ctx.apiKey) headers.authorization = `Bearer ${ctx.apiKey}`;
    const body = await engineJson("searxng", ctx, `${endpoint(ctx.baseUrl, "/search")}?${params}`, { method: "GET", headers });
    return {
      results: list(body, "results").map((item) => {
        const published = str(item, "publishedDate");
        return { title: str(item, "title"), url: str(item, "url"), snippet: str(item, "content"), ...(published ? { published } : {}) };
      }),
    };
  },
};
