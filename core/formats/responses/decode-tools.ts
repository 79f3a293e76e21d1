/** Responses `tools` and `tool_choice` → canonical tools and tool choice (spec "Responses request", Tools). */
import type { Static } from "@sinclair/typebox";
import type { Tool, ToolChoice } from "../../model/request.ts";
import { warn, type Warning } from "../../model/warnings.ts";
import { hostedWebSearchTool, isWebSearchShorthand } from "../shared/hosted-web-search.ts";
import { isServiceSpelling, serviceType } from "../shared/tool-spelling.ts";
import { cacheMark } from "./decode-input.ts";
import type { FunctionToolSchema, ResponsesRequest, ServerToolSchema } from "./schema.ts";

type FunctionTool = Static<typeof FunctionToolSchema>;
type ServerTool = Static<typeof ServerToolSchema>;

/**
 * Decodes `tools`. `service:*` and the peer's `openrouter:*` are the gateway's server tools; OpenAI's hosted web
 * search is `service:web_search`, shown back as OpenAI's `web_search_call` items; other services' hosted tool kinds
 * are dropped with a warning (the gateway cannot run them).
 */
export function decodeTools(tools: ResponsesRequest["tools"], warnings: Warning[]): Tool[] {
  const out: Tool[] = [];
  (tools ?? []).forEach((tool, index) => {
    if (tool.type === "function") out.push(functionTool(tool as FunctionTool));
    else if (isServiceSpelling(tool.type)) out.push(serverTool(tool as ServerTool));
    else if (isWebSearchShorthand(tool.type)) out.push(hostedWebSearchTool(tool as Record<string, unknown>, true));
    else warn(warnings, "unsupported_tool", `tools[${index}]`, `tool type ${tool.type} is not supported and was dropped`);
  });
  return out;
}

function serverTool(tool: ServerTool): Tool {
  const type = serviceType(tool.type);
  const out: Extract<Tool, { kind: "server" }> = { kind: "server", type };
  if (tool.parameters) out.parameters = tool.parameters;
  if (type !== tool.type) out.spelling = tool.type;
  if (tool.defer_loading !== undefined) out.deferLoading = tool.defer_loading;
  return out;
}

function functionTool(tool: FunctionTool): Tool {
  const out: Tool = { kind: "function", name: tool.name };
  if (typeof tool.description === "string") out.description = tool.description;
  if (tool.parameters) out.parameters = tool.parameters;
  if (typeof tool.strict === "boolean") out.strict = tool.strict;
  if (tool.async !== undefined) out.async = tool.async;
  if (tool.defer_loading !== undefined) out.deferLoading = tool.defer_loading;
  if (tool.cache_control) out.cache = cacheMark(tool.cache_control);
  return out;
}

/**
 * Decodes `tool_choice`; forms the canonical model cannot state exactly are approximated with a warning. A hosted
 * or server tool type (`{type: "web_search"}`, `{type: "service:datetime"}`) forces that server tool when the
 * request declares it; the agent loop maps it to the name the model sees.
 */
export function decodeToolChoice(choice: ResponsesRequest["tool_choice"], tools: readonly Tool[], warnings: Warning[]): ToolChoice | undefined {
  if (choice === undefined) return undefined;
  if (typeof choice === "string") return { type: choice };
  if (choice.type === "function" && "name" in choice && typeof choice.name === "string") return { type: "tool", name: choice.name };
  if (choice.type === "allowed_tools" && "mode" in choice) {
    warn(warnings, "approximated", "tool_choice", "allowed_tools is treated as its mode over all tools");
    return { type: choice.mode === "required" ? "required" : "auto" };
  }
  const server = isWebSearchShorthand(choice.type) ? "service:web_search" : serviceType(choice.type);
  if (tools.some((tool) => tool.kind === "server" && tool.type === server)) return { type: "tool", name: server };
  warn(warnings, "approximated", "tool_choice", `tool_choice of type ${choice.type} is treated as auto`);
  return { type: "auto" };
}
