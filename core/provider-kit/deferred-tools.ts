/**
 * Deferred function tools (`defer_loading: true`) for an upstream without deferral of its own (every adapter but
 * Anthropic's). Such tools reach an adapter only from a Messages client doing its own tool search, as Anthropic's
 * API allows (Claude Code's ToolSearch, its `DeferredToolPlaceholder`): the gateway's `service:tool_search` withholds
 * them itself (core/tools/declared.ts). Anthropic's semantics are kept: a deferred tool is withheld until a tool
 * result names it with a `tool_reference` (or the model already called it, or `tool_choice` names it), then sent as
 * an ordinary tool; the `tool_reference` itself reaches the model as a line of text. When the request relies on
 * Anthropic's own server-side search (`tool_search_tool_*`), which no other upstream runs, nothing could ever name
 * them: they are all sent up front, with a warning.
 */
import type { Message, Part, ToolResultPart } from "../model/parts.ts";
import type { CanonicalRequest, Tool } from "../model/request.ts";
import { warnUnsupported } from "./warnings.ts";

type FunctionTool = Extract<Tool, { kind: "function" }>;

/** The request as `upstream` can take it: deferred tools resolved, `tool_reference`s as text. Unchanged without deferred tools. */
export function resolveDeferredTools(request: CanonicalRequest, upstream: string): CanonicalRequest {
  if (!request.tools.some((tool) => tool.kind === "function" && tool.deferLoading === true)) return request;
  if (request.tools.some((tool) => tool.kind === "server" && tool.type.startsWith("tool_search_tool_"))) {
    const why = `${upstream} has no tool search of its own (Anthropic's tool_search_tool_* runs only on Anthropic): the deferred tools were sent up front`;
    warnUnsupported(request.warnings, "tools.defer_loading", why);
    return { ...request, tools: request.tools.map((tool) => (tool.kind === "function" ? loaded(tool) : tool)) };
  }
  const named = namedTools(request);
  const tools: Tool[] = [];
  for (const tool of request.tools) {
    if (tool.kind !== "function" || tool.deferLoading !== true) tools.push(tool);
    else if (named.has(tool.name)) tools.push(loaded(tool));
  }
  return { ...request, tools, messages: request.messages.map(withReferencesAsText) };
}

function loaded(tool: FunctionTool): FunctionTool {
  if (tool.deferLoading === undefined) return tool;
  const { deferLoading: _deferred, ...rest } = tool;
  return rest;
}

/** Tools the conversation has loaded: named by a `tool_reference`, called by the model, or forced by `tool_choice`. */
function namedTools(request: CanonicalRequest): Set<string> {
  const names = new Set<string>();
  for (const message of request.messages) {
    for (const part of message.parts) {
      if (part.type === "tool-result") for (const name of part.toolReferences ?? []) names.add(name);
      else if (part.type === "tool-call") names.add(part.name);
    }
  }
  if (request.toolChoice?.type === "tool") names.add(request.toolChoice.name);
  return names;
}

/** A tool result's `tool_reference`s as a line the model can read (its upstream has no such block). */
function withReferencesAsText(message: Message): Message {
  if (message.role !== "tool" || !message.parts.some((part) => part.type === "tool-result" && part.toolReferences !== undefined)) return message;
  return { ...message, parts: message.parts.map((part): Part => (part.type === "tool-result" && part.toolReferences ? referencesAsText(part) : part)) };
}

function referencesAsText(part: ToolResultPart): ToolResultPart {
  const line = `Tools loaded: ${part.toolReferences!.join(", ")}`;
  const { toolReferences: _references, ...rest } = part;
  if (typeof part.content === "string") return { ...rest, content: part.content === "" ? line : `${part.content}\n${line}` };
  return { ...rest, content: [...part.content, { type: "text", text: line }] };
}
