/**
 * A reply's server-tool parts, replayed by a client in its next request, become what the model originally saw: its
 * own call (an assistant tool call) and the result (a tool message), in place. Upstream adapters only ever see
 * function calls and their results.
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
    if (message.role !== "assistant" || !message.parts.some((part) => part.type === "server-tool")) {
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
      if (part.type === "server-tool") {
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
