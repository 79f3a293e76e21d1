/**
 * `web` (spec "Plugins"): searches the web before the model answers. The last user message is the
 * query; the search is one call of the `service:web_search` server tool (its engine, the operator's settings, the
 * network policy and its price, run through the hook context's `runTool`: nothing here searches by itself); the
 * results go into the system prompt with the search prompt, and the answer's text gets URL citations where it names
 * a result. `engine: "native"` instead hands the upstream its own search (the server tool's native mode). Options:
 * `engine`, `max_results` (1–25, default 5), `search_prompt`, `include_domains` / `exclude_domains` (hosts, `*.`
 * wildcards and paths, ≤ 50 each), `user_location`, `max_uses` (native search only), `mode` (accepted; our engines
 * have no modes). A search that fails leaves the request unsearched, with a warning.
 */
import { Type } from "@sinclair/typebox";
import type { Source } from "../../core/sdk/index.ts";
import { definePlugin, lastUserText, type GatewayError, type PluginContext } from "../../core/sdk/index.ts";
import { citeResponse, citeStream } from "./cite.ts";
import { defaultSearchPrompt, hitsOf, searchContext } from "./prompt.ts";

const ID = "web";
const SEARCH_TOOL = "service:web_search";
/** The tool's own query cap. */
const MAX_QUERY_CHARS = 1_000;
const literals = (values: readonly string[]) => Type.Union(values.map((value) => Type.Literal(value)));
const Domains = Type.Array(Type.String({ minLength: 1, maxLength: 300 }), { maxItems: 50 });

interface Searched {
  sources: Source[];
  searches: number;
}

export default definePlugin({
  id: ID,
  description: "Searches the web with the last user message and gives the model the results to cite.",
  // After the routers (the model is chosen), before fusion (whose panel then sees the results).
  priority: -40,
  // Its search is one call of the web_search tool.
  requires: { tools: [SEARCH_TOOL] },
  optionsSchema: Type.Object(
    {
      engine: Type.Optional(literals(["auto", "native", "searxng", "brave", "tavily", "exa", "firecrawl", "parallel", "perplexity"])),
      mode: Type.Optional(literals(["instant", "fast", "auto", "deep-lite", "deep", "deep-reasoning", "turbo", "basic", "advanced"])),
      max_results: Type.Optional(Type.Integer({ minimum: 1, maximum: 25 })),
      max_uses: Type.Optional(Type.Integer({ minimum: 1 })),
      search_prompt: Type.Optional(Type.String({ minLength: 1, maxLength: 10_000 })),
      include_domains: Type.Optional(Domains),
      exclude_domains: Type.Optional(Domains),
      user_location: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    },
    { additionalProperties: false },
  ),
  hooks: {
    async pre(ctx) {
      const query = lastUserText(ctx.request.messages).replace(/\s+/g, " ").trim().slice(0, MAX_QUERY_CHARS);
      if (query === "") return;
      if (ctx.options.engine === "native") return offerNative(ctx);
      const started = performance.now();
      let result: unknown;
      try {
        result = await ctx.runTool(SEARCH_TOOL, { query }, searchParameters(ctx));
      } catch (error) {
        if (isInvalidRequest(error)) throw ctx.helpers.error("invalid_request", `web plugin: ${error.message}`, { metadata: { param: field(ctx, "engine") } });
        const message = error instanceof Error ? error.message : String(error);
        ctx.request.warnings.push({ code: "web_search_failed", field: "plugins", message: `web plugin: the search failed (${message}); answered without it` });
        ctx.report({ summary: `web search failed: ${message}`, data: { query, error: message } });
        ctx.state.set("searched", { sources: [], searches: 1 } satisfies Searched);
        return;
      }
      const hits = hitsOf(result);
      const date = new Date(ctx.helpers.now()).toISOString().slice(0, 10);
      const prompt = typeof ctx.options.search_prompt === "string" ? ctx.options.search_prompt : defaultSearchPrompt(date);
      ctx.request = { ...ctx.request, system: [...ctx.request.system, { type: "text", text: searchContext(prompt, query, hits) }] };
      ctx.state.set("searched", { sources: hits.map(({ url, title, snippet }) => ({ url, title, snippet })), searches: 1 } satisfies Searched);
      ctx.report({
        summary: `searched the web for "${query.length > 80 ? `${query.slice(0, 79)}…` : query}": ${hits.length} result(s)`,
        data: { query, results: hits.length, urls: hits.map((hit) => hit.url), search_ms: Math.round(performance.now() - started) },
      });
    },
    post(ctx, response) {
      const searched = ctx.state.get("searched") as Searched | undefined;
      return searched ? citeResponse(response, searched.sources, searched.searches) : response;
    },
    stream(ctx, events) {
      const searched = ctx.state.get("searched") as Searched | undefined;
      return searched ? citeStream(events, searched.sources, searched.searches) : events;
    },
  },
});

/** The plugin's options as the search tool's parameters (the tool checks them again). */
function searchParameters(ctx: PluginContext): Record<string, unknown> {
  const o = ctx.options;
  const parameters: Record<string, unknown> = {};
  if (typeof o.engine === "string") parameters.engine = o.engine;
  if (typeof o.max_results === "number") parameters.max_results = o.max_results;
  if (Array.isArray(o.include_domains)) parameters.allowed_domains = o.include_domains;
  if (Array.isArray(o.exclude_domains)) parameters.excluded_domains = o.exclude_domains;
  if (o.user_location !== undefined) parameters.user_location = o.user_location;
  return parameters;
}

/** `engine: "native"`: the upstream searches by itself (the server tool's native mode), when the model wants to. */
function offerNative(ctx: PluginContext): void {
  if (ctx.request.tools.some((tool) => tool.kind === "server" && tool.type === SEARCH_TOOL)) return;
  const parameters: Record<string, unknown> = { ...searchParameters(ctx), engine: "native" };
  delete parameters.max_results; // the upstreams' own searches take no result count
  if (typeof ctx.options.max_uses === "number") parameters.max_uses = ctx.options.max_uses;
  ctx.request = { ...ctx.request, tools: [...ctx.request.tools, { kind: "server", type: SEARCH_TOOL, parameters }] };
  ctx.report({ summary: "offered the upstream's native web search", data: { engine: "native" } });
}

function isInvalidRequest(error: unknown): error is GatewayError {
  return typeof error === "object" && error !== null && (error as { type?: unknown }).type === "invalid_request";
}

function field(ctx: PluginContext, key: string): string {
  const index = ctx.request.plugins.findIndex((entry) => entry.id === ID);
  return index === -1 ? `plugins.${ID}.${key}` : `plugins[${index}].${key}`;
}
