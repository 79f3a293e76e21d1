/**
 * A server-tool call a client replays from an earlier reply (a Responses `service:*` item, a chat
 * `server_tool_calls` entry, a Messages `server_tool_use` + result block pair) → the canonical part. The formats differ
 * in where the fields sit; the rules for what they mean are here.
 */
import type { ServerToolPart } from "../../model/parts.ts";
import { serviceType } from "./tool-spelling.ts";

/** The fields a replayed call carries, already found in its wire shape. */
export interface ReplayedServerTool {
  id: string;
  callId?: string | null;
  name: string;
  arguments?: string | null;
  status?: string | null;
  result?: unknown;
  error?: string | null;
}

/**
 * Status: the three final ones pass; without one a call that carries an error failed and any other completed; a call
 * echoed while still running (`in_progress`, a stream cut short) never finished, which is `incomplete`.
 */
function statusOf(status: string | null | undefined, error: string | undefined): ServerToolPart["status"] {
  if (status === "completed" || status === "failed" || status === "incomplete") return status;
  if (status === undefined || status === null) return error !== undefined ? "failed" : "completed";
  return "incomplete";
}

/** Builds the part: the call id defaults to the item id, missing arguments to `{}`. */
export function replayedServerToolPart(call: ReplayedServerTool): ServerToolPart {
  const error = typeof call.error === "string" ? call.error : undefined;
  const part: ServerToolPart = {
    type: "server-tool",
    id: call.id,
    callId: call.callId || call.id,
    // The peer's `openrouter:<tool>` items are our `service:<tool>`.
    name: serviceType(call.name),
    arguments: call.arguments ?? "{}",
    status: statusOf(call.status, error),
  };
  if (call.result !== undefined) part.result = call.result;
  if (error !== undefined) part.error = error;
  return part;
}
