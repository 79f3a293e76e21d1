/**
 * Canonical agent-loop runs shared by the server-tool tests of every format: what core/pipeline/agent emits (text of
 * turn 1, a step's server-tool starts then ends, turn 2's text with ids prefixed `t2_`, loop usage counters).
 */
import type { StreamEvent } from "../../../core/model/events.ts";
import type { Usage } from "../../../core/model/usage.ts";

const start: StreamEvent = { type: "start", id: "gen-up-1", model: "openai/gpt-5", provider: "OpenAI", created: 1_750_000_000 };

/** Usage of a two-turn run that ran `executed` tools, `searches` of them web searches. */
export function loopUsage(executed: number, searches = 0, fetches = 0): Usage {
  const serverTools: Record<string, number> = { tool_calls_requested: executed, tool_calls_executed: executed };
  if (searches > 0) serverTools.web_search_requests = searches;
  if (fetches > 0) serverTools.web_fetch_requests = fetches;
  return { input: { total: 900, cacheRead: 0, cacheWrite: 0 }, output: { total: 60, reasoning: 0 }, serverTools };
}

export const DATETIME_RESULT = { datetime: "2025-07-15T14:30:00.000-04:00", timezone: "America/New_York" };

/** [text, service:datetime, text]: the model asks for the time, then answers with it. */
export const DATETIME_RUN: StreamEvent[] = [
  start,
  { type: "text-start", id: "msg_0" },
  { type: "text-delta", id: "msg_0", delta: "Let me check " },
  { type: "text-delta", id: "msg_0", delta: "the time." },
  { type: "text-end", id: "msg_0" },
  { type: "server-tool-start", id: "st_01", callId: "call_abc", name: "service:datetime", arguments: '{"timezone":"America/New_York"}' },
  { type: "server-tool-end", id: "st_01", status: "completed", result: DATETIME_RESULT },
  { type: "text-start", id: "t2_msg_0" },
  { type: "text-delta", id: "t2_msg_0", delta: "It is 14:30 in New York." },
  { type: "text-end", id: "t2_msg_0" },
  { type: "usage", usage: loopUsage(1) },
  { type: "finish", finish: { reason: "stop", raw: "completed" } },
];

export const SEARCH_RESULT = {
  query: "bun 1.2 release",
  results: [
    { title: "Bun 1.2 | Bun Blog", url: "https://bun.sh/blog/bun-v1.2", snippet: "Bun 1.2 is a huge update…", published: "2025-01-22" },
    { title: "Bun releases", url: "https://github.com/oven-sh/bun/releases", snippet: "Releases · oven-sh/bun" },
  ],
};

export const ANSWER = "Bun 1.2 shipped in January 2025.";

/** The canonical citation (Responses shape) of `Bun 1.2 shipped` in ANSWER. */
export const CITATION = { type: "url_citation", url: "https://bun.sh/blog/bun-v1.2", title: "Bun 1.2 | Bun Blog", start_index: 0, end_index: 15, content: "Bun 1.2 is a huge update…" };

/**
 * Two calls in one step that end in reverse order (a fetch that fails fast, a search that takes longer), then the
 * answer with a citation.
 */
export const SEARCH_RUN: StreamEvent[] = [
  start,
  { type: "text-start", id: "msg_0" },
  { type: "text-delta", id: "msg_0", delta: "Searching." },
  { type: "text-end", id: "msg_0" },
  { type: "server-tool-start", id: "st_search", callId: "call_s", name: "service:web_search", arguments: '{"query":"bun 1.2 release"}' },
  { type: "server-tool-start", id: "st_fetch", callId: "call_f", name: "service:web_fetch", arguments: '{"url":"https://bun.sh/missing"}' },
  { type: "server-tool-end", id: "st_fetch", status: "failed", error: "HTTP 404: Not Found" },
  { type: "server-tool-end", id: "st_search", status: "completed", result: SEARCH_RESULT },
  { type: "text-start", id: "t2_msg_0" },
  { type: "text-delta", id: "t2_msg_0", delta: ANSWER },
  { type: "text-end", id: "t2_msg_0", annotations: [CITATION] },
  { type: "usage", usage: loopUsage(2, 1, 1) },
  { type: "finish", finish: { reason: "stop", raw: "completed" } },
];
