/**
 * A loopback fake SearXNG (`GET /search?q=…&format=json`), for tests where the gateway's own `service:web_search`
 * runs: it records each query and answers two fixed results on its own origin, whose first page (`/news/1`) it
 * serves as HTML for `service:web_fetch`. The gateway reaches it through the operator allow-list
 * (`network.allow_private: ["127.0.0.1/32"]`, see `searchConfig`).
 */
import type { ConfigFile } from "../../core/config/file-schema.ts";

const ARTICLE = `<!doctype html><html><head><title>Chip makers report record quarter</title></head><body>
<article><h1>Record quarter</h1><p>Chip makers reported a record quarter today.</p></article></body></html>`;

export interface FakeSearchEngine {
  origin: string;
  /** The queries searched so far, oldest first. */
  readonly queries: string[];
  stop(): void;
}

export function startFakeSearchEngine(): FakeSearchEngine {
  const queries: string[] = [];
  let origin = "";
  const server: ReturnType<typeof Bun.serve> = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req): Response {
      const url = new URL(req.url);
      if (url.pathname === "/news/1") return new Response(ARTICLE, { headers: { "content-type": "text/html; charset=utf-8" } });
      if (url.pathname !== "/search") return new Response("not found", { status: 404 });
      const q = url.searchParams.get("q") ?? "";
      queries.push(q);
      return Response.json({
        query: q,
        results: [
          { url: `${origin}/news/1`, title: "Chip makers report record quarter", content: "Chip makers reported a record quarter today." },
          { url: `${origin}/news/2`, title: "New browser release", content: "A new browser version shipped today." },
        ],
      });
    },
  });
  origin = `http://127.0.0.1:${server.port}`;
  return { origin, queries, stop: () => server.stop(true) };
}

/** The config sections that make the gateway search with `engine`. */
export function searchConfig(engine: FakeSearchEngine): Pick<ConfigFile, "network" | "tools"> {
  return { network: { allow_private: ["127.0.0.1/32"] }, tools: { web_search: { engine: "searxng", base_url: engine.origin } } };
}
