/** tools/web-search: the engines against loopback fakes, the limits, the domain filters, billing, declaration and schemas. */
import { afterEach, describe, expect, test } from "bun:test";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { GatewayError } from "../../../../core/errors.ts";
import { moduleBrand } from "../../../../core/registry/define.ts";
import type { ToolDeclaration } from "../../../../core/registry/tool.ts";
import webSearch, { NO_ENGINE_MESSAGE, cut, optionsSchema, parametersSchema } from "../../../../tools/web-search/index.ts";
import { fakeServer, runContext } from "./fixtures.ts";

const servers: { stop(force?: boolean): unknown }[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.stop(true);
});

function serve(handler: Parameters<typeof fakeServer>[0]) {
  const fake = fakeServer(handler);
  servers.push(fake.server);
  return fake;
}

const json = (value: unknown, status = 200) => Response.json(value, { status });

function searxngResults(urls: string[], content = "snippet") {
  return { query: "q", results: urls.map((url, i) => ({ url, title: `Title ${i}`, content: `${content} ${i}`, engine: "duckduckgo" })) };
}

describe("searxng", () => {
  test("GETs {base_url}/search with q and format=json and maps results[].{url,title,content}; free", async () => {
    const fake = serve(() =>
      json({
        results: [
          { url: "https://bun.sh/docs", title: "Bun docs", content: "Bun is a fast runtime", publishedDate: "2025-01-02" },
          { url: "https://example.org/", title: "Example", content: "Example page" },
        ],
      }),
    );
    const ctx = runContext({ config: { engine: "searxng", base_url: `${fake.base}/searx/` } });
    const result = await webSearch.run({ query: "  bun runtime " }, ctx);
    expect(fake.seen).toHaveLength(1);
    const seen = fake.seen[0]!;
    expect(seen.method).toBe("GET");
    expect(seen.url.pathname).toBe("/searx/search");
    expect(seen.url.searchParams.get("q")).toBe("bun runtime");
    expect(seen.url.searchParams.get("format")).toBe("json");
    expect(seen.headers.get("authorization")).toBeNull();
    expect(result).toEqual({
      query: "bun runtime",
      results: [
        { title: "Bun docs", url: "https://bun.sh/docs", snippet: "Bun is a fast runtime", published: "2025-01-02" },
        { title: "Example", url: "https://example.org/", snippet: "Example page" },
      ],
    });
    expect(ctx.charges).toEqual([]);
  });

  test("a SearXNG without format=json (HTML or 403) is an error naming the setting", async () => {
    const fake = serve(() => new Response("<html>forbidden</html>", { status: 200, headers: { "content-type": "text/html" } }));
    const ctx = runContext({ config: { engine: "searxng", base_url: fake.base } });
    await expect(webSearch.run({ query: "x" }, ctx)).rejects.toThrow(/searxng: the reply is not JSON \(is format=json enabled/);
  });

  test("drops duplicate and non-http results, keeps at most max_results", async () => {
    const fake = serve(() =>
      json(searxngResults(["https://a.com/1", "https://a.com/1", "javascript:alert(1)", "not a url", "https://b.com/", "https://c.com/", "https://d.com/"])),
    );
    const ctx = runContext({ config: { engine: "searxng", base_url: fake.base }, parameters: { max_results: 3 } });
    const result = (await webSearch.run({ query: "x" }, ctx)) as { results: { url: string }[] };
    expect(result.results.map((r) => r.url)).toEqual(["https://a.com/1", "https://b.com/", "https://c.com/"]);
  });
});

describe("brave", () => {
  test("sends the key as X-Subscription-Token, count and country; strips markup; charges the default price", async () => {
    const fake = serve(() =>
      json({
        type: "search",
        web: {
          results: [
            { title: "Brave <strong>Search</strong>", url: "https://brave.com/search/", description: "A <strong>private</strong> engine &amp; more", page_age: "2025-03-01T00:00:00" },
          ],
        },
      }),
    );
    const ctx = runContext({
      config: { engine: "brave", base_url: fake.base, api_key: "brave-key" },
      parameters: { max_results: 4, user_location: { type: "approximate", country: "de", city: "Berlin" } },
    });
    const result = await webSearch.run({ query: "private search" }, ctx);
    const seen = fake.seen[0]!;
    expect(seen.method).toBe("GET");
    expect(seen.url.pathname).toBe("/res/v1/web/search");
    expect(seen.url.searchParams.get("q")).toBe("private search");
    expect(seen.url.searchParams.get("count")).toBe("4");
    expect(seen.url.searchParams.get("country")).toBe("DE");
    expect(seen.headers.get("x-subscription-token")).toBe("brave-key");
    expect(result).toEqual({
      query: "private search",
      results: [{ title: "Brave Search", url: "https://brave.com/search/", snippet: "A private engine & more", published: "2025-03-01T00:00:00" }],
    });
    expect(ctx.charges).toEqual([{ usd: 0.005, description: "web search (brave)" }]);
  });

  test("an engine error names the engine and status; the key is not in the message", async () => {
    const fake = serve(() => json({ type: "ErrorResponse", error: { detail: "Invalid subscription token" } }, 401));
    const ctx = runContext({ config: { engine: "brave", base_url: fake.base, api_key: "secret-key" } });
    const error = await webSearch.run({ query: "x" }, ctx).catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/^brave: HTTP 401 Unauthorized: .*Invalid subscription token/);
    expect((error as Error).message).not.toContain("secret-key");
  });

  test("a single allowed domain and excluded domains become site: operators", async () => {
    const fake = serve(() => json({ web: { results: [] } }));
    const ctx = runContext({
      config: { engine: "brave", base_url: fake.base, api_key: "k" },
      parameters: { allowed_domains: ["https://www.Example.com/"], excluded_domains: ["spam.com", "example.com/blog"] },
    });
    await webSearch.run({ query: "news" }, ctx);
    expect(fake.seen[0]!.url.searchParams.get("q")).toBe("news site:example.com -site:spam.com");
    // With filters applied afterwards, a full page is asked for.
    expect(fake.seen[0]!.url.searchParams.get("count")).toBe("20");
  });
});

describe("tavily", () => {
  test("POSTs {query, max_results, domains, search_depth} with a bearer key and maps results[].{title,url,content}", async () => {
    const fake = serve(() =>
      json({
        query: "q",
        results: [{ title: "T", url: "https://docs.python.org/3/", content: "Python docs", score: 0.9, published_date: "2025-02-02" }],
      }),
    );
    const ctx = runContext({
      config: { engine: "tavily", base_url: fake.base, api_key: "tvly-key" },
      parameters: { max_results: 3, allowed_domains: ["python.org", "*.pypi.org"], excluded_domains: ["wiki.python.org"] },
    });
    const result = await webSearch.run({ query: "python docs" }, ctx);
    const seen = fake.seen[0]!;
    expect(seen.method).toBe("POST");
    expect(seen.url.pathname).toBe("/search");
    expect(seen.headers.get("authorization")).toBe("Bearer tvly-key");
    expect(seen.headers.get("content-type")).toBe("application/json");
    const body = JSON.parse(seen.body) as Record<string, unknown>;
    expect(body).toMatchObject({
      query: "python docs",
      max_results: 3,
      search_depth: "basic",
      include_domains: ["python.org", "pypi.org"],
      exclude_domains: ["wiki.python.org"],
    });
    expect(body.api_key).toBeUndefined();
    expect(result).toEqual({ query: "python docs", results: [{ title: "T", url: "https://docs.python.org/3/", snippet: "Python docs", published: "2025-02-02" }] });
    expect(ctx.charges).toEqual([{ usd: 0.008, description: "web search (tavily)" }]);
  });
});

describe("exa", () => {
  test("POSTs {query, numResults, includeDomains, excludeDomains, contents.highlights} with x-api-key; joins highlights", async () => {
    const fake = serve(() =>
      json({
        results: [
          { id: "1", url: "https://arxiv.org/abs/1", title: "Paper", highlights: ["First part.", "Second part."], publishedDate: "2024-05-05" },
          { id: "2", url: "https://arxiv.org/abs/2", title: null, text: "Full text fallback" },
        ],
      }),
    );
    const ctx = runContext({
      config: { engine: "exa", base_url: fake.base, api_key: "exa-key" },
      parameters: { search_context_size: "low", allowed_domains: ["arxiv.org"], excluded_domains: ["bad.org"], user_location: { type: "approximate", country: "US" } },
    });
    const result = await webSearch.run({ query: "transformers", max_results: 2 }, ctx);
    const seen = fake.seen[0]!;
    expect(seen.method).toBe("POST");
    expect(seen.url.pathname).toBe("/search");
    expect(seen.headers.get("x-api-key")).toBe("exa-key");
    expect(JSON.parse(seen.body)).toEqual({
      query: "transformers",
      type: "auto",
      numResults: 2,
      contents: { highlights: { maxCharacters: 1000 } },
      includeDomains: ["arxiv.org"],
      excludeDomains: ["bad.org"],
      userLocation: "US",
    });
    expect(result).toEqual({
      query: "transformers",
      results: [
        { title: "Paper", url: "https://arxiv.org/abs/1", snippet: "First part.\n[...]\nSecond part.", published: "2024-05-05" },
        { title: "arxiv.org", url: "https://arxiv.org/abs/2", snippet: "Full text fallback" },
      ],
    });
    expect(ctx.charges).toEqual([{ usd: 0.007, description: "web search (exa)" }]);
  });

  test("the default price grows past 10 results; price_per_request overrides it", async () => {
    const fake = serve(() => json({ results: [] }));
    const ctx = runContext({ config: { engine: "exa", base_url: fake.base, api_key: "k" }, parameters: { max_results: 15 } });
    await webSearch.run({ query: "x", max_results: 15 }, ctx);
    expect(ctx.charges).toEqual([{ usd: 0.012, description: "web search (exa)" }]);
    const priced = runContext({ config: { engine: "exa", base_url: fake.base, api_key: "k", price_per_request: 0.02 } });
    await webSearch.run({ query: "x" }, priced);
    expect(priced.charges).toEqual([{ usd: 0.02, description: "web search (exa)" }]);
  });
});

describe("domain filters on results", () => {
  const urls = ["https://example.com/a", "https://docs.example.com/b", "https://notexample.com/c", "https://evil.com/d", "https://www.example.com/blog/x"];

  test("allowed_domains keeps the domain and its subdomains only", async () => {
    const fake = serve(() => json(searxngResults(urls)));
    const ctx = runContext({ config: { engine: "searxng", base_url: fake.base }, parameters: { allowed_domains: ["example.com"] } });
    const result = (await webSearch.run({ query: "x" }, ctx)) as { results: { url: string }[] };
    expect(result.results.map((r) => r.url)).toEqual(["https://example.com/a", "https://docs.example.com/b", "https://www.example.com/blog/x"]);
    expect(fake.seen[0]!.url.searchParams.get("q")).toBe("x site:example.com");
  });

  test("excluded_domains (hosts and host/path) drop results; both lists at once", async () => {
    const fake = serve(() => json(searxngResults(urls)));
    const ctx = runContext({
      config: { engine: "searxng", base_url: fake.base },
      parameters: { allowed_domains: ["example.com", "evil.com"], excluded_domains: ["docs.example.com", "example.com/blog"] },
    });
    const result = (await webSearch.run({ query: "x" }, ctx)) as { results: { url: string }[] };
    expect(result.results.map((r) => r.url)).toEqual(["https://example.com/a", "https://evil.com/d"]);
    // Two allowed hosts: no site: operator for them; the path rule is not sent as -site: (it would drop all of example.com).
    expect(fake.seen[0]!.url.searchParams.get("q")).toBe("x -site:docs.example.com");
  });
});

describe("snippets and counts", () => {
  test("snippets are cut to the search_context_size cap (low 1000, medium 3000) or max_characters", async () => {
    const long = "word ".repeat(2000);
    const fake = serve(() => json({ results: [{ url: "https://a.com/", title: "A", content: long }] }));
    for (const [parameters, cap] of [
      [{ search_context_size: "low" }, 1000],
      [{}, 3000],
      [{ search_context_size: "high" }, 6000],
      [{ max_characters: 50 }, 50],
    ] as const) {
      const ctx = runContext({ config: { engine: "searxng", base_url: fake.base }, parameters });
      const result = (await webSearch.run({ query: "x" }, ctx)) as { results: { snippet: string }[] };
      const snippet = result.results[0]!.snippet;
      expect(snippet.length).toBeLessThanOrEqual(cap);
      expect(snippet.length).toBeGreaterThan(cap - 10);
      expect(snippet.endsWith("…")).toBe(true);
    }
  });

  test("cut never splits a surrogate pair", () => {
    expect(cut("ab😀cd", 4)).toBe("ab…");
    expect(cut("short", 10)).toBe("short");
  });

  test("the model's max_results is capped by the request's max_results", async () => {
    const fake = serve(() => json(searxngResults(Array.from({ length: 20 }, (_, i) => `https://s${i}.com/`))));
    const ctx = runContext({ config: { engine: "searxng", base_url: fake.base }, parameters: { max_results: 3 } });
    expect(((await webSearch.run({ query: "x", max_results: 10 }, ctx)) as { results: unknown[] }).results).toHaveLength(3);
    expect(((await webSearch.run({ query: "x", max_results: 2 }, ctx)) as { results: unknown[] }).results).toHaveLength(2);
    expect(((await webSearch.run({ query: "x" }, runContext({ config: ctx.config }))) as { results: unknown[] }).results).toHaveLength(5);
  });
});

describe("limits", () => {
  test("over max_uses the call returns a limit message without searching or billing", async () => {
    const fake = serve(() => json({ web: { results: [] } }));
    const ctx = runContext({ config: { engine: "brave", base_url: fake.base, api_key: "k" }, parameters: { max_uses: 2 }, previousUses: 2 });
    const result = await webSearch.run({ query: "x" }, ctx);
    expect(result).toEqual({
      query: "x",
      results: [],
      error: "max_uses_exceeded",
      message: "web search may run at most 2 time(s) in this request; answer with the results you already have.",
    });
    expect(fake.seen).toHaveLength(0);
    expect(ctx.charges).toEqual([]);
  });

  test("max_total_results counts earlier calls as max_results each: what is left caps this call, then a limit message", async () => {
    const fake = serve(() => json(searxngResults(Array.from({ length: 10 }, (_, i) => `https://s${i}.com/`))));
    const config = { engine: "searxng", base_url: fake.base };
    const parameters = { max_results: 5, max_total_results: 12 };
    const second = (await webSearch.run({ query: "x" }, runContext({ config, parameters, previousUses: 1 }))) as { results: unknown[] };
    expect(second.results).toHaveLength(5);
    const third = (await webSearch.run({ query: "x" }, runContext({ config, parameters, previousUses: 2 }))) as { results: unknown[] };
    expect(third.results).toHaveLength(2);
    const fourth = await webSearch.run({ query: "x" }, runContext({ config, parameters, previousUses: 3 }));
    expect(fourth).toMatchObject({ results: [], error: "max_total_results_exceeded" });
    expect(fake.seen).toHaveLength(2);
  });

  test("an empty or over-long query is an error", async () => {
    const ctx = runContext({ config: { engine: "searxng", base_url: "http://127.0.0.1:9" } });
    await expect(webSearch.run({ query: "  " }, ctx)).rejects.toThrow(/query must be a non-empty string/);
    await expect(webSearch.run({}, ctx)).rejects.toThrow(/query must be a non-empty string/);
    await expect(webSearch.run({ query: "x".repeat(1001) }, ctx)).rejects.toThrow(/query_too_long/);
  });

  test("an engine slower than timeout_ms fails the call with a timeout message", async () => {
    const fake = serve(async () => {
      await Bun.sleep(2000);
      return json({ results: [] });
    });
    const ctx = runContext({ config: { engine: "searxng", base_url: fake.base, timeout_ms: 100 } });
    const started = Date.now();
    await expect(webSearch.run({ query: "x" }, ctx)).rejects.toThrow("web search (searxng) timed out after 100 ms");
    expect(Date.now() - started).toBeLessThan(1500);
  });
});

describe("declare", () => {
  function declaration(parameters: Record<string, unknown>, config: Record<string, unknown>): ToolDeclaration {
    return {
      parameters,
      config,
      format: "chat",
      catalog: {} as ToolDeclaration["catalog"],
      helpers: runContext().helpers,
      field: "tools[1]",
    };
  }
  function refusal(parameters: Record<string, unknown>, config: Record<string, unknown>): GatewayError {
    try {
      webSearch.declare!(declaration(parameters, config));
    } catch (error) {
      expect(error).toBeInstanceOf(GatewayError);
      return error as GatewayError;
    }
    throw new Error("declare accepted it");
  }

  test("no engine configured → 400 with the documented message", () => {
    const error = refusal({}, {});
    expect(error.type).toBe("invalid_request");
    expect(error.status).toBe(400);
    expect(error.message).toBe(NO_ENGINE_MESSAGE);
    expect(NO_ENGINE_MESSAGE).toBe("service:web_search: no search engine is configured (set tools.web_search.engine in the gateway config)");
  });

  test('engine "native" needs no gateway engine (the upstream searches); its other parameters are still checked', () => {
    expect(() => webSearch.declare!(declaration({ engine: "native" }, {}))).not.toThrow();
    expect(() => webSearch.declare!(declaration({ engine: "native", allowed_domains: ["example.com"] }, { engine: "brave" }))).not.toThrow();
    const error = refusal({ engine: "native", excluded_domains: ["ok.com", "not a domain"] }, {});
    expect(error.metadata).toEqual({ field: "tools[1].parameters.excluded_domains[1]" });
  });

  test("an engine other than the configured one is refused; auto and the configured name pass", () => {
    const config = { engine: "brave", api_key: "k" };
    expect(refusal({ engine: "exa" }, config).message).toContain('engine "exa" is not available on this gateway (configured: brave)');
    expect(refusal({ engine: "perplexity" }, config).message).toContain('engine "perplexity"');
    expect(() => webSearch.declare!(declaration({ engine: "auto" }, config))).not.toThrow();
    expect(() => webSearch.declare!(declaration({ engine: "brave" }, config))).not.toThrow();
    expect(() => webSearch.declare!(declaration({}, config))).not.toThrow();
  });

  test("a keyed engine without api_key, or searxng without base_url, is refused", () => {
    expect(refusal({}, { engine: "tavily" }).message).toContain("tools.web_search.api_key");
    expect(refusal({}, { engine: "searxng" }).message).toContain("tools.web_search.base_url");
  });

  test("a domain entry that is not a domain name is refused with its index", () => {
    const error = refusal({ allowed_domains: ["example.com", "not a domain"] }, { engine: "searxng", base_url: "http://127.0.0.1:1" });
    expect(error.metadata).toEqual({ field: "tools[1].parameters.allowed_domains[1]" });
    expect(error.message).toContain('"not a domain" is not a domain name');
  });
});

describe("schemas and module", () => {
  const parameters = TypeCompiler.Compile(parametersSchema);
  const options = TypeCompiler.Compile(optionsSchema);

  test("parametersSchema accepts the documented parameters", () => {
    expect(parameters.Check({})).toBe(true);
    expect(
      parameters.Check({
        engine: "auto",
        max_results: 25,
        max_uses: 1,
        max_total_results: 1,
        search_context_size: "high",
        max_characters: 100_000,
        allowed_domains: Array.from({ length: 50 }, (_, i) => `d${i}.com`),
        excluded_domains: ["x.com"],
        user_location: { type: "approximate", city: "Paris", region: "IDF", country: "FR", timezone: "Europe/Paris" },
      }),
    ).toBe(true);
  });

  test("parametersSchema rejects unknown keys and out-of-range values", () => {
    for (const bad of [
      { unknown: 1 },
      { max_results: 0 },
      { max_results: 26 },
      { max_results: 2.5 },
      { max_uses: 0 },
      { max_total_results: 0 },
      { search_context_size: "huge" },
      { max_characters: 100_001 },
      { engine: "google" },
      { allowed_domains: Array.from({ length: 51 }, (_, i) => `d${i}.com`) },
      { excluded_domains: [""] },
      { allowed_domains: "example.com" },
      { user_location: { type: "exact" } },
      { user_location: { type: "approximate", street: "x" } },
      { user_location: { country: "FR" } },
    ]) {
      expect(parameters.Check(bad)).toBe(false);
    }
  });

  test("optionsSchema: the documented keys; unknown keys, engines and bad values are start-up errors", () => {
    expect(options.Check({})).toBe(true);
    expect(options.Check({ engine: "searxng", base_url: "http://searxng:8080", timeout_ms: 5000, price_per_request: 0 })).toBe(true);
    expect(options.Check({ engine: "brave", api_key: "k", price_per_request: 0.004 })).toBe(true);
    for (const bad of [{ engine: "google" }, { engine: "native" }, { enigne: "brave" }, { base_url: "searxng:8080" }, { price_per_request: -1 }, { timeout_ms: 10 }, { api_key: "" }]) {
      expect(options.Check(bad)).toBe(false);
    }
  });

  test("is a branded tool with the usage counter and model arguments", () => {
    expect(moduleBrand(webSearch)?.kind).toBe("tool");
    expect(webSearch.id).toBe("service:web_search");
    expect(webSearch.usageCounter).toBe("web_search_requests");
    expect(webSearch.argumentsSchema).toMatchObject({ type: "object", required: ["query"], properties: { query: { type: "string" }, max_results: { type: "integer" } } });
  });
});
