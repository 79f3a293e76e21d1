/** Shared fixtures for the Messages format tests: an encode context and canonical event scripts. */
import type { EncodeContext } from "../../../../core/formats/format.ts";
import { messagesFormat } from "../../../../core/formats/messages/index.ts";
import type { StreamEvent } from "../../../../core/model/events.ts";
import type { Usage } from "../../../../core/model/usage.ts";
import { replay } from "../../../support/iterables.ts";

/** A context for a plain Messages request. */
export function encodeContext(extra: Partial<EncodeContext> = {}): EncodeContext {
  const request = messagesFormat.decode({ model: "anthropic/claude-sonnet-4.5", max_tokens: 1024, messages: [{ role: "user", content: "Hi" }] }, new Headers());
  return { request, generationId: "gen-123", ...extra };
}

/** Replays a fixed list of events as a stream. */
export { replay };

/** Runs the stream encoder to completion. */
export async function frames(events: readonly StreamEvent[], ctx: EncodeContext = encodeContext()): Promise<string[]> {
  const out: string[] = [];
  for await (const frame of messagesFormat.stream(replay(events), ctx)) out.push(frame);
  return out;
}

/** `event: X\ndata: {…}\n\n` → `{event, data}`. */
export function parseFrame(frame: string): { event: string; data: Record<string, unknown> } {
  const match = /^event: ([^\n]+)\ndata: ([^\n]+)\n\n$/.exec(frame);
  if (!match) throw new Error(`not a named SSE frame: ${JSON.stringify(frame)}`);
  return { event: match[1] as string, data: JSON.parse(match[2] as string) as Record<string, unknown> };
}

export const usage = (input: number, output: number, cacheRead = 0, cacheWrite = 0, reasoning = 0): Usage => ({
  input: { total: input, cacheRead, cacheWrite },
  output: { total: output, reasoning },
});

const start: StreamEvent = { type: "start", id: "msg_01", model: "claude-sonnet-4-5-20250929", provider: "anthropic", created: 1_700_000_000 };

/** A plain text answer with cached input, as the anthropic adapter emits it. */
export const TEXT_EVENTS: StreamEvent[] = [
  start,
  { type: "usage", usage: usage(2100, 1, 1500, 100) },
  { type: "text-start", id: "text-0" },
  { type: "text-delta", id: "text-0", delta: "Hello" },
  { type: "text-delta", id: "text-0", delta: " there." },
  { type: "text-end", id: "text-0" },
  { type: "usage", usage: usage(2100, 12, 1500, 100) },
  { type: "finish", finish: { reason: "stop", raw: "end_turn" } },
];

/** Thinking with a signature, then a tool call streamed in pieces. */
export const TOOL_EVENTS: StreamEvent[] = [
  start,
  { type: "usage", usage: usage(400, 1) },
  { type: "reasoning-start", id: "reasoning-0", format: "anthropic-claude-v1" },
  { type: "reasoning-delta", id: "reasoning-0", delta: "User wants weather." },
  { type: "reasoning-end", id: "reasoning-0", signature: "EqQBCkYIBxgCKkA=" },
  { type: "text-start", id: "text-1" },
  { type: "text-delta", id: "text-1", delta: "Checking." },
  { type: "text-end", id: "text-1" },
  { type: "tool-call-start", id: "toolu_01A", name: "get_weather" },
  { type: "tool-call-delta", id: "toolu_01A", delta: '{"city": ' },
  { type: "tool-call-delta", id: "toolu_01A", delta: '"Paris"}' },
  { type: "tool-call-end", id: "toolu_01A" },
  { type: "usage", usage: usage(400, 85, 0, 0, 30) },
  { type: "finish", finish: { reason: "tool_calls", raw: "tool_use" } },
];
