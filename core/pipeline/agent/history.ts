/**
 * A reply's server-tool parts, replayed by a client in its next request, become what the model originally saw: its
 * own call (an assistant tool call) and the result (a tool message), in place. Upstream adapters only ever see
 * function calls and their results — except for a tool the upstream ran itself (a name without `service:`, e.g.
 * Anthropic's `web_search` a Messages client declared as its typed tool): the model never saw it as a function, so
 * the part stays for the adapter, which sends it back in the upstream's own form (or drops it, saying so).
 */
import type { Message, Part, ServerToolPart, ToolCallPart, ToolResultPart } from "../../model/parts.ts";
import { SERVER_TOOL_PREFIX, type DeclaredTools } from "../../tools/declared.ts";
import { resultForModel } from "./tool-runner.ts";

/** True when some assistant message carries a server-tool part (cheap: most requests have none). */
export function hasServerToolHistory(messages: readonly Message[]): boolean {
  return messages.some((message) => message.role === "assistant" && message.parts.some((part) => part.type === "server-tool"));
}

/** The messages with every server-tool part turned into a tool call and its result, order kept. */
export function expandServerToolHistory(messages: readonly Message[], declared: DeclaredTools | undefined): Message[] {
  const out: Message[] = [];
  for (const message of messages) {
    if (message.role !== "assistant" || !message.parts.some(isGatewayRun)) {
      out.push(message);
      continue;
    }
    let assistant: Part[] = [];
    let results: ToolResultPart[] = [];
    const flush = () => {
      if (assistant.length > 0) out.push({ ...message, parts: assistant });
      if (results.length > 0) out.push({ role: "tool", parts: results });
      assistant = [];
      results = [];
    };
    for (const part of message.parts) {
      if (isGatewayRun(part)) {
        assistant.push(callOf(part, declared));
        results.push(resultOf(part, declared));
      } else {
        if (results.length > 0) flush(); // text after a tool result belongs to the model's next turn
        assistant.push(part);
      }
    }
    flush();
  }
  return out;
}

/** A server-tool part of a tool the gateway runs (`service:…`), which the model saw as a function call. */
function isGatewayRun(part: Part): part is ServerToolPart {
  return part.type === "server-tool" && part.name.startsWith(SERVER_TOOL_PREFIX);
}

/** The function name a server tool is called by: the request's own name for it, else its plain name. */
export function modelNameOf(part: Pick<ServerToolPart, "name">, declared: DeclaredTools | undefined): string {
  const entry = declared?.list.find((tool) => tool.module.id === part.name);
  return entry?.modelName ?? (part.name.startsWith(SERVER_TOOL_PREFIX) ? part.name.slice(SERVER_TOOL_PREFIX.length) : part.name);
}

function callOf(part: ServerToolPart, declared: DeclaredTools | undefined): ToolCallPart {
  return { type: "tool-call", id: part.callId, name: modelNameOf(part, declared), arguments: part.arguments };
}

export function resultOf(part: ServerToolPart, declared: DeclaredTools | undefined): ToolResultPart {
  const result: ToolResultPart = { type: "tool-result", callId: part.callId, content: resultForModel(part), name: modelNameOf(part, declared) };
  if (part.status !== "completed") result.isError = true;
  return result;
}
