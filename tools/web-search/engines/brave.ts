/** Brave Search API: `GET {base_url}/res/v1/web/search?q=&count=` with `X-Subscription-Token` → `web.results[].{title,url,description}`. */
import { type SearchEngine, endpoint, engineJson, list, plainText, str, withSiteOperators } from "../engine.ts";

const MAX_COUNT = 20;

export const brave: SearchEngine = {
  name: "brave",
  defaultBaseUrl: "https://api.search.brave.com",
  needsApiKey: true,
  defaultPrice: () => 0.005,
  maxResults: MAX_COUNT,
  async search(query, options, ctx) {
    const filtered = options.includeDomains.length > 0 || options.excludeDomains.length > 0;
    const params = new URLSearchParams({
      q: withSiteOperators(query, options),
      // With domain filters applied afterwards, ask for a full page so that enough survive.
      count: String(filtered ? MAX_COUNT : options.maxResults),
      text_decorations: "false",
    });
    if (options.country) params.set("country", options.country);
    const body = await engineJson("brave", ctx, `${endpoint(ctx.baseUrl, "/res/v1/web/search")}?${params}`, {
      method: "GET",
      headers: { accept: "application/json", "x-subscription-token": ctx.apiKey ?? "" },
    });
    const web = typeof body === "object" && body !== null ? (body as Record<string, unknown>).web : undefined;
    return {
      results: list(web, "results").map((item) => {
        const published = str(item, "page_age") || str(item, "age");
        return {
          title: plainText(str(item, "title")),
          url: str(item, "url"),
          snippet: plainText(str(item, "description")),
          ...(published ? { published } : {}),
        };
      }),
    };
  },
};
