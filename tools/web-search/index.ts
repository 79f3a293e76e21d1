/**
 * `service:web_search`: searches the web with the engine the operator
 * configured (`tools.web_search.engine`: searxng, brave, tavily or exa) and hands the model
 * `{query, results: [{title, url, snippet, published?}]}`. Each engine request is billed with `price_per_request`
 * (default per engine) before it is sent. Over `max_uses` / `max_total_results` the call returns
 * `{query, results: [], error, message}` without searching.
 *
 * `engine: "native"` asks the upstream's own search instead (Anthropic's `web_search_20250305`, OpenAI Responses'
 * `web_search`); the gateway runs nothing and bills nothing for it. Natively only these parameters apply:
 * `allowed_domains`, `user_location` (both upstreams), `max_uses` and `excluded_domains` (Anthropic, as
 * `blocked_domains`), `search_context_size` (OpenAI). The others (`max_results`, `max_total_results`,
 * `max_characters`) shape the gateway's own engines only; the adapter warns that they were not sent.
 */
import { type Static, Type } from "@sinclair/typebox";
import { defineTool, domainRefusal, domainRules, excludeHosts, includeHosts, parseDomainRules } from "../../core/sdk/index.ts";
import type { ToolDeclaration } from "../../core/sdk/index.ts";
import { ENGINE_NAMES, type EngineName, type SearchEngine, type SearchOptions } from "./engine.ts";
import { brave } from "./engines/brave.ts";
import { exa } from "./engines/exa.ts";
import { searxng } from "./engines/searxng.ts";
import { tavily } from "./engines/tavily.ts";

export const ENGINES: Readonly<Record<EngineName, SearchEngine>> = { searxng, brave, tavily, exa };

export const DEFAULT_MAX_RESULTS = 5;
export const DEFAULT_MAX_TOTAL_RESULTS = 50;
export const DEFAULT_TIMEOUT_MS = 10_000;
export const MAX_QUERY_CHARS = 1000;
/** Per-result snippet cap by `search_context_size`. */
export const SNIPPET_CHARS = { low: 1000, medium: 3000, high: 6000 } as const;

const literals = <T extends string>(values: readonly T[]) => Type.Union(values.map((value) => Type.Literal(value)));
const Domains = Type.Array(Type.String({ minLength: 1, maxLength: 300 }), { maxItems: 50 });

/** The request entry's `parameters`. Engine names of other gateways are accepted here so that declare() can say why not. */
export const parametersSchema = Type.Object(
  {
    engine: Type.Optional(literals(["auto", "native", ...ENGINE_NAMES, "firecrawl", "parallel", "perplexity"])),
    max_results: Type.Optional(Type.Integer({ minimum: 1, maximum: 25 })),
    max_uses: Type.Optional(Type.Integer({ minimum: 1 })),
    max_total_results: Type.Optional(Type.Integer({ minimum: 1 })),
    search_context_size: Type.Optional(literals(["low", "medium", "high"])),
    max_characters: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
    allowed_domains: Type.Optional(Domains),
    excluded_domains: Type.Optional(Domains),
    user_location: Type.Optional(
      Type.Object(
        {
          type: Type.Literal("approximate"),
          city: Type.Optional(Type.String({ maxLength: 200 })),
          region: Type.Optional(Type.String({ maxLength: 200 })),
          country: Type.Optional(Type.String({ maxLength: 100 })),
          timezone: Type.Optional(Type.String({ maxLength: 100 })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
export type WebSearchParameters = Static<typeof parametersSchema>;

/** The operator's `tools.web_search` settings. */
export const optionsSchema = Type.Object(
  {
    engine: Type.Optional(literals(ENGINE_NAMES)),
    base_url: Type.Optional(Type.String({ pattern: "^https?://[^\\s]+$" })),
    api_key: Type.Optional(Type.String({ minLength: 1 })),
    price_per_request: Type.Optional(Type.Number({ minimum: 0, maximum: 10 })),
    timeout_ms: Type.Optional(Type.Integer({ minimum: 100, maximum: 120_000 })),
  },
  { additionalProperties: false },
);
export type WebSearchOptions = Static<typeof optionsSchema>;

export const NO_ENGINE_MESSAGE = "service:web_search: no search engine is configured (set tools.web_search.engine in the gateway config)";

/** What is wrong with the operator's settings for a search, or undefined when a search can run. */
function configProblem(config: WebSearchOptions): string | undefined {
  if (!config.engine) return NO_ENGINE_MESSAGE;
  const engine = ENGINES[config.engine];
  if (engine.needsApiKey && !config.api_key) {
    return `service:web_search: the ${engine.name} engine needs an API key (set tools.web_search.api_key in the gateway config)`;
  }
  if (!engine.defaultBaseUrl && !config.base_url) {
    return `service:web_search: the ${engine.name} engine needs its address (set tools.web_search.base_url in the gateway config)`;
  }
  return undefined;
}

function declare({ parameters, config, field, helpers }: ToolDeclaration): void {
  const params = parameters as WebSearchParameters;
  const settings = config as WebSearchOptions;
  const fail = (at: string, message: string): never => {
    throw helpers.error("invalid_request", message, { metadata: { field: at } });
  };
  // `native`: the upstream searches (core/tools/declared.ts hands the adapter this tool), so no gateway engine is
  // needed; whether the routed upstream has a search of its own is the adapter's call (a 400 where it has none).
  const native = params.engine === "native";
  const problem = native ? undefined : configProblem(settings);
  if (problem) fail(`${field}.type`, problem);
  if (!native && params.engine !== undefined && params.engine !== "auto" && params.engine !== settings.engine) {
    fail(
      `${field}.parameters.engine`,
      `service:web_search: engine "${params.engine}" is not available on this gateway (configured: ${settings.engine}); omit engine or use "auto"`,
    );
  }
  for (const key of ["allowed_domains", "excluded_domains"] as const) {
    const list = params[key];
    const { badIndex } = parseDomainRules(list);
    if (badIndex !== undefined) fail(`${field}.parameters.${key}[${badIndex}]`, `service:web_search: "${list?.[badIndex]}" is not a domain name`);
  }
}

/** Cuts text to `max` characters (an ellipsis included), without splitting a surrogate pair. */
export function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = Math.max(0, max - 1);
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return `${text.slice(0, end).trimEnd()}…`;
}

function limitResult(query: string, error: string, message: string) {
  return { query, results: [], error, message };
}

function httpUrl(value: string): URL | undefined {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:" ? url : undefined;
  } catch {
    return undefined;
  }
}

export default defineTool({
  id: "service:web_search",
  description:
    "Searches the web. Returns results with a title, URL and a text snippet each. Use it for recent events or facts you are unsure of, and cite the URLs you rely on.",
  argumentsSchema: {
    type: "object",
    properties: {
      query: { type: "string", description: "The search query." },
      max_results: { type: "integer", minimum: 1, maximum: 25, description: "How many results to return (capped by the gateway)." },
    },
    required: ["query"],
    additionalProperties: false,
  },
  parametersSchema,
  optionsSchema,
  usageCounter: "web_search_requests",
  declare,
  async run(args, ctx) {
    const settings = ctx.config as WebSearchOptions;
    const params = ctx.parameters as WebSearchParameters;
    const problem = configProblem(settings);
    if (problem || !settings.engine) throw new Error(problem ?? NO_ENGINE_MESSAGE);
    const engine = ENGINES[settings.engine];

    const query = typeof args.query === "string" ? args.query.trim() : "";
    if (query === "") throw new Error("invalid_tool_input: query must be a non-empty string");
    if (query.length > MAX_QUERY_CHARS) throw new Error(`query_too_long: the query has ${query.length} characters (at most ${MAX_QUERY_CHARS})`);

    const perCall = params.max_results ?? DEFAULT_MAX_RESULTS;
    if (params.max_uses !== undefined && ctx.previousUses >= params.max_uses) {
      return limitResult(
        query,
        "max_uses_exceeded",
        `web search may run at most ${params.max_uses} time(s) in this request; answer with the results you already have.`,
      );
    }
    // Earlier calls are counted as having returned `max_results` results each (the tool keeps no state between calls).
    const maxTotal = params.max_total_results ?? DEFAULT_MAX_TOTAL_RESULTS;
    const remaining = maxTotal - ctx.previousUses * perCall;
    if (remaining <= 0) {
      return limitResult(
        query,
        "max_total_results_exceeded",
        `web search may return at most ${maxTotal} results in this request; answer with the results you already have.`,
      );
    }
    const asked = typeof args.max_results === "number" && Number.isFinite(args.max_results) ? Math.max(1, Math.floor(args.max_results)) : perCall;
    const wanted = Math.min(asked, perCall, remaining);

    const allowed = domainRules(params.allowed_domains);
    const excluded = domainRules(params.excluded_domains);
    const country = params.user_location?.country?.trim();
    const options: SearchOptions = {
      maxResults: Math.min(wanted, engine.maxResults),
      snippetChars: params.max_characters ?? SNIPPET_CHARS[params.search_context_size ?? "medium"],
      includeDomains: includeHosts(allowed),
      excludeDomains: excludeHosts(excluded),
      ...(country && /^[a-z]{2}$/i.test(country) ? { country: country.toUpperCase() } : {}),
    };

    const price = settings.price_per_request ?? engine.defaultPrice(options.maxResults);
    if (price > 0) await ctx.charge(Math.round(price * 1e6) / 1e6, `web search (${engine.name})`);

    const timeoutMs = settings.timeout_ms ?? DEFAULT_TIMEOUT_MS;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = AbortSignal.any([ctx.signal, timeout]);
    let found: Awaited<ReturnType<SearchEngine["search"]>>;
    try {
      found = await engine.search(query, options, {
        fetch: ctx.fetch,
        signal,
        baseUrl: (settings.base_url ?? engine.defaultBaseUrl ?? "").replace(/\/+$/, ""),
        ...(settings.api_key ? { apiKey: settings.api_key } : {}),
      });
    } catch (error) {
      if (timeout.aborted && !ctx.signal.aborted) throw new Error(`web search (${engine.name}) timed out after ${timeoutMs} ms`);
      throw error;
    }

    const seen = new Set<string>();
    const results: { title: string; url: string; snippet: string; published?: string }[] = [];
    for (const result of found.results) {
      if (results.length >= wanted) break;
      const url = httpUrl(result.url);
      if (!url || seen.has(url.href)) continue;
      if (domainRefusal(url, allowed, excluded, "excluded_domains")) continue;
      seen.add(url.href);
      results.push({
        title: result.title || url.hostname,
        url: result.url,
        snippet: cut(result.snippet, options.snippetChars),
        ...(result.published ? { published: result.published } : {}),
      });
    }
    return { query, results };
  },
});
