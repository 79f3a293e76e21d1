/**
 * OpenAI's hosted web search tool (`{"type": "web_search"}` and its dated / preview types) as chat and Responses
 * clients send it: the gateway runs it as `service:web_search`, so the search happens whatever the
 * upstream. OpenAI's own fields become the tool's parameters (`filters.allowed_domains` → `allowed_domains`,
 * `filters.blocked_domains` → `excluded_domains`); `external_web_access` needs nothing (the gateway's search returns
 * its engine's indexed results and opens no page); any other field is passed on as a parameter, so one the tool does
 * not define is the usual 400 naming it.
 */
import type { Tool } from "../../model/request.ts";
import { isPlainObject } from "./server-tool-fields.ts";

/** OpenAI's hosted web search types (the AI SDK's `openai.tools.webSearch()` sends `web_search`). */
export const WEB_SEARCH_SHORTHANDS = ["web_search", "web_search_preview", "web_search_preview_2025_03_11", "web_search_2025_08_26"] as const;

const SHORTHANDS: ReadonlySet<string> = new Set(WEB_SEARCH_SHORTHANDS);

export function isWebSearchShorthand(type: string): boolean {
  return SHORTHANDS.has(type);
}

/** An object without its null / undefined entries (OpenAI's clients send `null` for unset fields). */
function defined(value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key in value) if (value[key] !== null && value[key] !== undefined) out[key] = value[key];
  return out;
}

/**
 * The canonical `service:web_search` for one shorthand entry. `spelling` keeps the client's type when its format
 * shows the search in OpenAI's shape (Responses `web_search_call`).
 */
export function hostedWebSearchTool(entry: Record<string, unknown>, keepSpelling: boolean): Tool {
  const { type, filters, external_web_access: _external, ...rest } = entry;
  const parameters = defined(rest);
  if (isPlainObject(parameters.user_location)) parameters.user_location = defined(parameters.user_location);
  if (isPlainObject(filters)) {
    const { allowed_domains: allowed, blocked_domains: blocked, ...other } = filters;
    if (allowed !== undefined && allowed !== null) parameters.allowed_domains = allowed;
    if (blocked !== undefined && blocked !== null) parameters.excluded_domains = blocked;
    // A filter OpenAI may add later has no meaning here: kept, so the search's parameter check names it (a 400).
    if (Object.keys(defined(other)).length > 0) parameters.filters = defined(other);
  } else if (filters !== undefined && filters !== null) parameters.filters = filters;
  const tool: Extract<Tool, { kind: "server" }> = { kind: "server", type: "service:web_search" };
  if (Object.keys(parameters).length > 0) tool.parameters = parameters;
  if (keepSpelling) tool.spelling = String(type);
  return tool;
}
