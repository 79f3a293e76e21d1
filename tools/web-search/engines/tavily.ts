/** Tavily: `POST {base_url}/search` JSON with `Authorization: Bearer` → `results[].{title,url,content}`. */
import { type SearchEngine, endpoint, engineJson, list, str } from "../engine.ts";

export const tavily: SearchEngine = {
  name: "tavily",
  defaultBaseUrl: "https://api.tavily.com",
  needsApiKey: true,
  // One "basic" search is one API credit ($0.008 pay-as-you-go).
  defaultPrice: () => 0.008,
  maxResults: 20,
  async search(query, options, ctx) {
    const request: Record<string, unknown> = {
      query,
      max_results: options.maxResults,
      search_depth: "basic",
      topic: "general",
      include_answer: false,
      include_raw_content: false,
      include_images: false,
    };
    if (options.includeDomains.length > 0) request.include_domains = options.includeDomains;
    if (options.excludeDomains.length > 0) request.exclude_domains = options.excludeDomains;
    // `country` is not passed: Tavily wants a country name from its own list, not an ISO code.
    const body = await engineJson("tavily", ctx, endpoint(ctx.baseUrl, "/search"), {
      method: "POST",
      headers: { accept: "application/json", "content-type": "application/json", authorization: `Bearer ${ctx.apiKey ?? ""}` },
      body: JSON.stringify(request),
    });
    return {
      results: list(body, "results").map((item) => {
        const published = str(item, "published_date");
        return { title: str(item, "title"), url: str(item, "url"), snippet: str(item, "content"), ...(published ? { published } : {}) };
      }),
    };
  },
};
