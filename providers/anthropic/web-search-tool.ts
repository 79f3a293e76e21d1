/**
 * `service:web_search` with `engine: "native"` → Anthropic's own web search tool (`web_search_20250305`): Anthropic
 * searches during the turn and reports it as `server_tool_use` + `web_search_tool_result` blocks (./web-search-blocks.ts).
 */
import type { Tool, Warning } from "../../core/sdk/index.ts";
import { bareDomain, nativeWebSearchParameters, type ServerTool, warnUnsupported } from "../../core/sdk/provider.ts";

/** Anthropic's web search tool type and the name its blocks carry. */
export const ANTHROPIC_WEB_SEARCH_TYPE = "web_search_20250305";
export const ANTHROPIC_WEB_SEARCH_NAME = "web_search";

/** What Anthropic's tool takes; the other parameters are warned about (they shape the gateway's engines only). */
const HONOURED = ["max_uses", "allowed_domains", "excluded_domains", "user_location"];

/** The tool definition sent in `tools`. */
export function nativeWebSearchTool(tool: ServerTool, index: number, warnings: Warning[]): Record<string, unknown> {
  const parameters = nativeWebSearchParameters(tool, index, HONOURED, "Anthropic", warnings);
  const out: Record<string, unknown> = { type: ANTHROPIC_WEB_SEARCH_TYPE, name: ANTHROPIC_WEB_SEARCH_NAME };
  if (parameters.max_uses !== undefined) out.max_uses = parameters.max_uses;
  const allowed = parameters.allowed_domains?.map(bareDomain) ?? [];
  const blocked = parameters.excluded_domains?.map(bareDomain) ?? [];
  if (allowed.length > 0) out.allowed_domains = allowed;
  // Anthropic refuses a tool with both lists; the allowed list already keeps the search to those sites.
  if (blocked.length > 0 && allowed.length > 0) {
    const why = "Anthropic's web search takes allowed or blocked domains, not both; excluded_domains was not sent";
    warnUnsupported(warnings, `tools[${index}].parameters.excluded_domains`, why);
  } else if (blocked.length > 0) out.blocked_domains = blocked;
  if (parameters.user_location !== undefined) out.user_location = { ...parameters.user_location };
  return out;
}

/**
 * A function standing for one of Anthropic's own typed tools (`web_search_20250305`, `web_fetch_20250910`, …; the
 * gateway runs it on other upstreams, core/tools/upstream-equivalents.ts): Anthropic gets that tool exactly as the
 * client declared it, and runs it. Undefined for any other function.
 */
export function ownTypedTool(tool: Tool): Record<string, unknown> | undefined {
  if (tool.kind !== "function" || tool.upstreamTool === undefined) return undefined;
  return { type: tool.upstreamTool.type, ...tool.upstreamTool.parameters };
}
