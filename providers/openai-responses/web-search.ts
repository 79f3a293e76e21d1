/**
 * `service:web_search` with `engine: "native"` → OpenAI's own `web_search` tool, and its `web_search_call` output
 * items → canonical server-tool parts named `service:web_search` (result `{query, results: [{url, title?}]}`, the
 * shape of the gateway's own search). OpenAI reports no search count in `usage`, so the calls are counted from the
 * items (`web_search_requests`), as Anthropic's usage counts its searches.
 */
import type { ServerToolPart, StreamEvent, Usage, Warning } from "../../core/sdk/index.ts";
import { bareDomain, isPlainObject as isRecord, nativeWebSearchParameters, type ServerTool, warnUnsupported, WEB_SEARCH } from "../../core/sdk/provider.ts";
import type { WireOutputItem, WireWebSearchTool } from "./wire.ts";

/** What OpenAI's tool takes; the other parameters are warned about. */
const HONOURED = ["search_context_size", "user_location", "allowed_domains"];

/**
 * The `include` value that makes OpenAI list a search's sources (every URL it consulted); without it a
 * `web_search_call` only names the query, and the client's item would show no results.
 */
export const WEB_SEARCH_SOURCES = "web_search_call.action.sources";

/** The tool definition sent in `tools`. */
export function nativeWebSearchTool(tool: ServerTool, index: number, warnings: Warning[]): WireWebSearchTool {
  const parameters = nativeWebSearchParameters(tool, index, HONOURED, "OpenAI", warnings);
  const out: WireWebSearchTool = { type: "web_search" };
  if (parameters.search_context_size !== undefined) out.search_context_size = parameters.search_context_size;
  if (parameters.user_location !== undefined) out.user_location = { ...parameters.user_location };
  const allowed = parameters.allowed_domains?.map(bareDomain) ?? [];
  if (allowed.length > 0) out.filters = { allowed_domains: allowed };
  if (parameters.excluded_domains?.length) {
    // Named apart from the generic warning: a client relying on it must know its results may include those sites.
    warnUnsupported(warnings, `tools[${index}].parameters.excluded_domains`, "OpenAI's web search cannot exclude domains; excluded_domains was not sent");
  }
  return out;
}

/** The call's arguments: its action without the kind and the sources (`{query}`, `{url}`, `{url, pattern}`). */
function argumentsOf(item: WireOutputItem): string | undefined {
  if (!isRecord(item.action)) return undefined;
  const { type: _type, sources: _sources, ...args } = item.action;
  return JSON.stringify(args);
}

/** The sources as the gateway's search results; a page opened or searched in is its own single result. */
function resultsOf(action: Record<string, unknown>): Array<{ url: string; title?: string }> {
  const sources = Array.isArray(action.sources) ? action.sources.filter(isRecord) : [];
  const results = sources.flatMap((source) => {
    if (typeof source.url !== "string") return [];
    return [typeof source.title === "string" ? { url: source.url, title: source.title } : { url: source.url }];
  });
  if (results.length === 0 && typeof action.url === "string") results.push({ url: action.url });
  return results;
}

/** The part's id: the item's (`ws_…`), which is also the call id (OpenAI gives the search no other). */
export function webSearchId(item: WireOutputItem, fallback: () => string): string {
  return item.id ?? fallback();
}

/** Whether the item already says what is searched (an `output_item.added` usually does not yet). */
export function hasAction(item: WireOutputItem): boolean {
  return isRecord(item.action) && (typeof item.action.query === "string" || typeof item.action.url === "string");
}

/** The call as announced (`server-tool-start`). */
export function webSearchStart(item: WireOutputItem, id: string): Extract<StreamEvent, { type: "server-tool-start" }> {
  return { type: "server-tool-start", id, callId: id, name: WEB_SEARCH, arguments: argumentsOf(item) ?? "{}" };
}

/** A finished item's outcome: completed with its results, failed, or (still searching when cut off) incomplete. */
export function webSearchOutcome(item: WireOutputItem): Pick<ServerToolPart, "status" | "result" | "error"> {
  if (item.status === "failed") return { status: "failed", error: "web search failed" };
  if (item.status !== "completed") return { status: "incomplete" };
  const action = isRecord(item.action) ? item.action : {};
  return { status: "completed", result: { query: typeof action.query === "string" ? action.query : "", results: resultsOf(action) } };
}

/** A `web_search_call` item of a finished result → its part. */
export function webSearchPart(item: WireOutputItem, fallback: () => string): ServerToolPart {
  const start = webSearchStart(item, webSearchId(item, fallback));
  return { type: "server-tool", id: start.id, callId: start.callId, name: start.name, arguments: start.arguments, ...webSearchOutcome(item) };
}

/** The usage with `searches` web search calls counted (left as it is when there were none). */
export function withWebSearches(usage: Usage, searches: number): Usage {
  if (searches === 0) return usage;
  const serverTools = { ...usage.serverTools, web_search_requests: (usage.serverTools?.web_search_requests ?? 0) + searches };
  return { ...usage, serverTools };
}
