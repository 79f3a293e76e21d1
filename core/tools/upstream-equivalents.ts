/**
 * An upstream's own server tool that a gateway tool can stand in for: Anthropic's typed web tools
 * (`web_search_20250305`, `web_search_20260209`, `web_fetch_20250910`, …) a Messages client declares. On an Anthropic
 * upstream the typed tool goes as the client sent it (Anthropic searches); on every other adapter the gateway runs
 * its own `service:web_search` / `service:web_fetch` with the typed tool's settings, so the search still happens
 * (README "Server tools").
 */
import type { Tool } from "../model/request.ts";

type ServerTool = Extract<Tool, { kind: "server" }>;

/** The gateway tool standing in for an Anthropic typed web tool, or undefined for any other type. */
export function gatewayEquivalent(type: string): "service:web_search" | "service:web_fetch" | undefined {
  if (/^web_search_\d{8}$/.test(type)) return "service:web_search";
  if (/^web_fetch_\d{8}$/.test(type)) return "service:web_fetch";
  return undefined;
}

/** True for a tool a non-Anthropic upstream can only get through the gateway's equivalent. */
export function hasGatewayEquivalent(tool: Tool): tool is ServerTool {
  return tool.kind === "server" && gatewayEquivalent(tool.type) !== undefined;
}

const isStrings = (value: unknown): value is string[] => Array.isArray(value) && value.every((entry) => typeof entry === "string");

/**
 * The typed tool's settings as the gateway tool's parameters: `max_uses`, `allowed_domains`, the blocked list
 * (`excluded_domains` for search, `blocked_domains` for fetch), `user_location` (search), `max_content_tokens`
 * (fetch). What only Anthropic's tool knows (`name`, `citations`, `cache_control`) has no gateway meaning.
 */
export function equivalentParameters(tool: ServerTool, equivalent: "service:web_search" | "service:web_fetch"): Record<string, unknown> {
  const from = tool.parameters ?? {};
  const out: Record<string, unknown> = {};
  if (typeof from.max_uses === "number") out.max_uses = from.max_uses;
  if (isStrings(from.allowed_domains) && from.allowed_domains.length > 0) out.allowed_domains = from.allowed_domains;
  if (isStrings(from.blocked_domains) && from.blocked_domains.length > 0) {
    out[equivalent === "service:web_search" ? "excluded_domains" : "blocked_domains"] = from.blocked_domains;
  }
  if (equivalent === "service:web_search" && typeof from.user_location === "object" && from.user_location !== null) {
    const location = Object.fromEntries(Object.entries(from.user_location).filter(([, value]) => value !== null && value !== undefined));
    out.user_location = { type: "approximate", ...location };
  }
  if (equivalent === "service:web_fetch" && typeof from.max_content_tokens === "number") out.max_content_tokens = from.max_content_tokens;
  return out;
}
