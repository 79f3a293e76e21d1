/** Canonical finish → chat `finish_reason` / `native_finish_reason` (spec "Chat-completions result body"). */
import type { Finish, FinishReason } from "../../model/response.ts";

/** The finish reasons a chat-completions client understands. */
export type ChatFinishReason = "stop" | "length" | "tool_calls" | "content_filter" | "error";

/**
 * Unified → chat. Chat has no `refusal`/`pause`/`context_window`; the nearest value is used and the exact upstream
 * value still reaches the client through `native_finish_reason`.
 */
const CHAT_FINISH = {
  stop: "stop",
  length: "length",
  tool_calls: "tool_calls",
  content_filter: "content_filter",
  refusal: "content_filter",
  pause: "stop",
  context_window: "length",
  error: "error",
  other: "stop",
} as const satisfies Record<FinishReason, ChatFinishReason>;

/** `finish_reason` of a choice. */
export function chatFinishReason(finish: Finish): ChatFinishReason {
  return CHAT_FINISH[finish.reason];
}

/** `native_finish_reason`: the upstream's own value, or null when the adapter did not report one. */
export function nativeFinishReason(finish: Finish): string | null {
  return finish.raw ?? null;
}
