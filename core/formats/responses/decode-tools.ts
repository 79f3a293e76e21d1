/** Responses `tools` and `tool_choice` → canonical tools and tool choice (spec "Responses request", Tools). */
import type { Static } from "@sinclair/typebox";
import { errors } from "../../errors.ts";
import type { Tool, ToolChoice } from "../../model/request.ts";
import { warn, type Warning } from "../../model/warnings.ts";
import { cacheMark } from "./decode-input.ts";
import type { FunctionToolSchema, ResponsesRequest, ServerToolSchema } from "./schema.ts";

type FunctionTool = Static<typeof FunctionToolSchema>;
type ServerTool = Static<typeof ServerToolSchema>;

/** Decodes `tools`; hosted tool kinds of other services are dropped with a warning (the gateway cannot run them). */
export function decodeTools(tools: ResponsesRequest["tools"], warnings: Warning[]): Tool[] {
  const out: Tool[] = [];
  (tools ?? []).forEach((tool, index) => {
    if (tool.type === "function") out.push(functionTool(tool as FunctionTool));
    else if (tool.type.startsWith("service:")) {
      const server = tool as ServerTool;
      out.push(server.parameters ? { kind: "server", type: server.type, parameters: server.parameters } : { kind: "server", type: server.type });
    } else warn(warnings, "unsupported_tool", `tools[${index}]`, `tool type ${tool.type} is not supported and was dropped`);
  });
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


/** Decodes `tool_choice`; forms the canonical model cannot state exactly are approximated with a warning. */
export function decodeToolChoice(choice: ResponsesRequest["tool_choice"], warnings: Warning[]): ToolChoice | undefined {
  if (choice === undefined) return undefined;
  if (typeof choice === "string") return { type: choice };
  if (choice.type === "function" && "name" in choice && typeof choice.name === "string") return { type: "tool", name: choice.name };
  if (choice.type === "allowed_tools" && "mode" in choice) {
    warn(warnings, "approximated", "tool_choice", "allowed_tools is treated as its mode over all tools");
    return { type: choice.mode === "required" ? "required" : "auto" };
  }
  warn(warnings, "approximated", "tool_choice", `tool_choice of type ${choice.type} is treated as auto`);
  return { type: "auto" };
}
