/**
 * Server tools the gateway ran, as chat shows them: `message.server_tool_calls[]` in a result, `delta.server_tool_calls[]`
 * in a stream (merged by `index`, like `tool_calls`), and the same entries replayed on an assistant message. Chat has
 * no standard shape for them; this one carries what the Responses item does,
 * with the tool's result as the model saw it.
 */
import type { ServerToolPart } from "../../model/parts.ts";
import { replayedServerToolPart } from "../shared/server-tool-part.ts";

/** One server-tool call of `message.server_tool_calls`; `type` is the tool (`service:web_search`). */
export interface ChatServerToolCallOut {
  id: string;
  type: string;
  call_id: string;
  arguments: string;
  status: ServerToolPart["status"];
  result?: unknown;
  error?: string;
}

/**
 * A stream delta: the first one of an index announces the call (`call_id`, `arguments`, status `in_progress`), the
 * second one closes it (final `status`, `result` or `error`). A client merges them key by key.
 */
export interface ChatServerToolCallDelta {
  index: number;
  id: string;
  type: string;
  call_id?: string;
  arguments?: string;
  status: ServerToolPart["status"] | "in_progress";
  result?: unknown;
  error?: string;
}

/** The result entry of one part; `shownAs` is the tool's type as the client declared it (`openrouter:<tool>`), else ours. */
export function serverToolCallOut(part: ServerToolPart, shownAs = part.name): ChatServerToolCallOut {
  const out: ChatServerToolCallOut = { id: part.id, type: shownAs, call_id: part.callId, arguments: part.arguments, status: part.status };
  if (part.result !== undefined) out.result = part.result;
  if (part.error !== undefined) out.error = part.error;
  return out;
}

/** The delta announcing a call that started running. */
export function serverToolStartDelta(index: number, call: { id: string; name: string; callId: string; arguments: string }): ChatServerToolCallDelta {
  return { index, id: call.id, type: call.name, call_id: call.callId, arguments: call.arguments, status: "in_progress" };
}

/** The delta closing a call: its final status and what it returned (or why it failed). */
export function serverToolEndDelta(index: number, name: string, end: Pick<ServerToolPart, "id" | "status" | "result" | "error">): ChatServerToolCallDelta {
  const delta: ChatServerToolCallDelta = { index, id: end.id, type: name, status: end.status };
  if (end.result !== undefined) delta.result = end.result;
  if (end.error !== undefined) delta.error = end.error;
  return delta;
}

/** A replayed entry (schema-valid) → the canonical part. */
export function serverToolPartOf(entry: {
  id: string;
  type: string;
  call_id?: string | null;
  arguments?: string | null;
  status?: string | null;
  result?: unknown;
  error?: string | null;
}): ServerToolPart {
  return replayedServerToolPart({
    id: entry.id,
    callId: entry.call_id,
    name: entry.type,
    arguments: entry.arguments,
    status: entry.status,
    result: entry.result,
    error: entry.error,
  });
}
