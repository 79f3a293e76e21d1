/**
 * Server tools the upstream runs itself (`parameters.engine: "native"`; core/tools/declared.ts): the adapter gets the
 * canonical `service:` tool, not a function. An adapter whose upstream has that tool translates it; every other one
 * refuses it with a 400, because dropping it would silently answer without the search the client asked for.
 */
import { errors } from "../errors.ts";
import type { Tool } from "../model/request.ts";
import type { Warning } from "../model/warnings.ts";
import { warnUnsupported } from "./warnings.ts";

export type ServerTool = Extract<Tool, { kind: "server" }>;

export const WEB_SEARCH = "service:web_search";

/** True for a `service:` tool the request wants the upstream to run. (Not a type guard: its `false` says nothing of the kind.) */
export function isNativeServerTool(tool: Tool): boolean {
  return tool.kind === "server" && tool.type.startsWith("service:") && tool.parameters?.engine === "native";
}

/** True for the native web search (the one native server tool adapters translate). */
export function isNativeWebSearch(tool: Tool): boolean {
  return tool.kind === "server" && tool.type === WEB_SEARCH && isNativeServerTool(tool);
}

/** Throws the 400 for a native server tool `adapter` cannot run, naming the tool's field. */
export function refuseNativeServerTool(tool: Tool, index: number, adapter: string): void {
  if (tool.kind !== "server" || !isNativeServerTool(tool)) return;
  const field = `tools[${index}].parameters.engine`;
  throw errors.invalid(`${tool.type} engine native is not supported by ${adapter}; use a gateway engine`, { field });
}

/** Refuses every native server tool of `tools` (for adapters with none of their own). */
export function refuseNativeServerTools(tools: readonly Tool[], adapter: string): void {
  tools.forEach((tool, index) => refuseNativeServerTool(tool, index, adapter));
}

/** The `service:web_search` parameters an upstream's own search may honour (already schema-checked by declare()). */
export interface NativeWebSearchParameters {
  max_uses?: number;
  search_context_size?: "low" | "medium" | "high";
  allowed_domains?: string[];
  excluded_domains?: string[];
  user_location?: { type: "approximate"; city?: string; region?: string; country?: string; timezone?: string };
}

/**
 * The tool's parameters, with a warning for each one `upstream` does not honour (`honoured` lists those it does):
 * the gateway's engine limits (`max_results`, …) mean nothing to an upstream's search.
 */
export function nativeWebSearchParameters(
  tool: ServerTool,
  index: number,
  honoured: readonly string[],
  upstream: string,
  warnings: Warning[],
): NativeWebSearchParameters {
  const parameters = tool.parameters ?? {};
  for (const key of Object.keys(parameters)) {
    if (key === "engine" || honoured.includes(key)) continue;
    const why = `${WEB_SEARCH} parameter ${key} does not apply to ${upstream}'s own web search and was not sent`;
    warnUnsupported(warnings, `tools[${index}].parameters.${key}`, why);
  }
  return parameters as NativeWebSearchParameters;
}

/**
 * A domain filter entry as upstream searches want it (`example.com`, `example.com/blog`): declare() accepts a scheme,
 * a leading `*.` and a trailing slash, which those searches reject.
 */
export function bareDomain(entry: string): string {
  return entry
    .trim()
    .replace(/^[a-z][a-z0-9+.-]*:\/\//i, "")
    .replace(/^\*\./, "")
    .replace(/\/+$/, "");
}
