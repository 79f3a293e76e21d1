/**
 * Canonical tools and tool choice → Converse `toolConfig`: function tools as `toolSpec`s (their cache marks as
 * `cachePoint`s after them, `strict` where the model has strict tool use), `auto` / `required` / a named tool as
 * `{auto}` / `{any}` / `{tool}`. Converse has no `none`: without tool blocks in the conversation the tools are simply
 * not sent (the model cannot call what it does not know); with them Bedrock requires the tools, which then go with
 * `auto` and a warning. A conversation holding tool blocks but no tools (a client replaying history) gets specs
 * declared from the names it uses, as Bedrock requires.
 */
import type { CanonicalRequest, Tool, Warning } from "../../core/sdk/index.ts";
import { isNativeServerTool, refuseNativeServerTool, warn, warnUnsupported } from "../../core/sdk/provider.ts";
import { cachePoint } from "./messages.ts";
import type { ModelTraits } from "./models.ts";
import type { WireMessage, WireTool, WireToolChoice } from "./wire.ts";

export interface ToolConfig {
  tools: WireTool[];
  toolChoice?: WireToolChoice;
}

/** The tool config of a request (before any JSON-answer tool is added), or undefined when none is sent. */
export function toWireToolConfig(request: CanonicalRequest, messages: readonly WireMessage[], traits: ModelTraits, warnings: Warning[]): ToolConfig | undefined {
  const tools = request.tools.flatMap((tool, i) => wireTool(tool, i, traits, warnings));
  const history = toolNamesIn(messages);
  const choice = request.toolChoice;
  if (request.parallelToolCalls === false || (choice?.type === "tool" && choice.disableParallel === true)) {
    warnUnsupported(warnings, "parallel_tool_calls", "Bedrock has no switch for parallel tool calls; the model may still make several");
  }
  if (tools.length === 0) {
    if (history.size === 0) return undefined;
    warn(warnings, "defaulted", "tools", "Bedrock requires the tools of a conversation's tool calls; they were declared from the names the conversation uses");
    return { tools: [...history].map((name) => ({ toolSpec: { name, inputSchema: { json: { type: "object" } } } })) };
  }
  if (choice?.type === "none") {
    if (history.size === 0) return undefined;
    warnUnsupported(warnings, "tool_choice", "Bedrock has no tool_choice none and needs the tools of a conversation holding tool calls; they were sent with auto");
    return { tools, toolChoice: { auto: {} } };
  }
  const config: ToolConfig = { tools };
  if (choice?.type === "auto") config.toolChoice = { auto: {} };
  else if (choice?.type === "required") config.toolChoice = { any: {} };
  else if (choice?.type === "tool") config.toolChoice = { tool: { name: choice.name } };
  return config;
}

function wireTool(tool: Tool, i: number, traits: ModelTraits, warnings: Warning[]): WireTool[] {
  if (tool.kind === "server") {
    // A native server tool the client relies on would silently not run: refused (400), as every adapter without one does.
    if (isNativeServerTool(tool)) refuseNativeServerTool(tool, i, "bedrock");
    warnUnsupported(warnings, `tools[${i}]`, `Bedrock has no ${tool.type} tool of its own; it was not sent`);
    return [];
  }
  const spec: Extract<WireTool, { toolSpec: unknown }>["toolSpec"] = { name: tool.name, inputSchema: { json: tool.parameters ?? { type: "object", properties: {} } } };
  if (tool.description !== undefined && tool.description !== "") spec.description = tool.description;
  if (tool.strict === true) {
    if (traits.structuredOutput === "native") spec.strict = true;
    else warnUnsupported(warnings, `tools[${i}].strict`, "This Bedrock model has no strict tool use; the tool was sent without it");
  }
  return tool.cache === undefined ? [{ toolSpec: spec }] : [{ toolSpec: spec }, { cachePoint: cachePoint(tool.cache) }];
}

/** Tool names the conversation's tool-use blocks name. */
function toolNamesIn(messages: readonly WireMessage[]): Set<string> {
  const names = new Set<string>();
  let results = false;
  for (const message of messages) {
    for (const block of message.content) {
      if ("toolUse" in block) names.add(block.toolUse.name);
      else if ("toolResult" in block) results = true;
    }
  }
  // Results whose calls are not in the history still need a tool config; any declared name will do.
  if (results && names.size === 0) names.add("tool");
  return names;
}
