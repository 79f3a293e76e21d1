/**
 * Replies of the fake OpenAI chat upstream (test/support/fake-upstream) whose chunking the test chooses: one SSE
 * frame per piece of text, so the gateway's output guard sees exactly these deltas; and the same text whole, for
 * the non-streamed verdict. Plus the ways a match can sit against chunk boundaries.
 */
import type { JsonReply, SseReply } from "../../support/fake-upstream/server.ts";

const BASE = { id: "chatcmpl-guard", object: "chat.completion.chunk", created: 1754042400, model: "gpt-4.1" };
const USAGE = { prompt_tokens: 12, completion_tokens: 20, total_tokens: 32 };
const PATH = /^\/v1\/chat\/completions$/;

export function streamedReply(pieces: readonly string[]): SseReply {
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({ data: { ...BASE, choices: [{ index: 0, delta, finish_reason: finish }] } });
  return {
    kind: "sse",
    style: "data",
    expectPath: PATH,
    frames: [chunk({ role: "assistant", content: "" }), ...pieces.map((content) => chunk({ content })), chunk({}, "stop"), { data: { ...BASE, choices: [], usage: USAGE } }, { data: "[DONE]" }],
  };
}

export function wholeReply(text: string): JsonReply {
  return {
    kind: "json",
    expectPath: PATH,
    body: { ...BASE, object: "chat.completion", choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: text } }], usage: USAGE },
  };
}

/** How `text` is cut around the match at `[start, end)`. */
export function chunkings(text: string, start: number, end: number): Record<string, string[]> {
  const mid = start + Math.max(1, Math.floor((end - start) / 2));
  return {
    "match ends at a chunk's end": [text.slice(0, end), text.slice(end)],
    "match spans two chunks": [text.slice(0, mid), text.slice(mid)],
    "match inside one chunk": [text.slice(0, Math.max(1, start - 1)), text.slice(Math.max(1, start - 1), end + 1), text.slice(end + 1)].filter((p) => p !== ""),
    "one character per chunk": [...text],
  };
}
