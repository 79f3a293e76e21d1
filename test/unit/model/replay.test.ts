/** core/model/replay.ts: a canonical response replayed as events, and collected back to the same response. */
import { describe, expect, test } from "bun:test";
import { collect } from "../../../core/model/collect.ts";
import type { StreamEvent } from "../../../core/model/events.ts";
import { eventsFromResponse } from "../../../core/model/replay.ts";
import type { CanonicalResponse } from "../../../core/model/response.ts";
import { drain } from "../../support/iterables.ts";

/** An agent-loop reply: two turns of text around a completed, a failed and an unfinished server tool. */
const response: CanonicalResponse = {
  id: "gen-up",
  model: "openai/gpt-5",
  provider: "OpenAI",
  created: 1_750_000_000,
  parts: [
    { type: "text", text: "Let me check the time." },
    { type: "server-tool", id: "st_1", callId: "call_1", name: "service:datetime", arguments: '{"timezone":"UTC"}', status: "completed", result: { datetime: "2025-07-15T18:30:00.000Z", timezone: "UTC" } },
    { type: "server-tool", id: "st_2", callId: "call_2", name: "service:web_fetch", arguments: '{"url":"https://x.example"}', status: "failed", error: "timed out after 30000 ms" },
    { type: "server-tool", id: "st_3", callId: "call_3", name: "service:web_search", arguments: '{"query":"q"}', status: "incomplete" },
    { type: "text", text: "It is 18:30 UTC.", annotations: [{ type: "url_citation", url: "https://time.example", title: "Time", start_index: 6, end_index: 11 }] },
  ],
  finish: { reason: "stop", raw: "completed" },
  usage: { input: { total: 10, cacheRead: 0, cacheWrite: 0 }, output: { total: 5, reasoning: 0 }, serverTools: { tool_calls_requested: 3, tool_calls_executed: 3 } },
  warnings: [],
};

describe("eventsFromResponse", () => {
  test("a server-tool part becomes a start and an end event keyed by the part's own id", async () => {
    const events = await drain(eventsFromResponse(response));
    const tools = events.filter((e): e is Extract<StreamEvent, { type: "server-tool-start" | "server-tool-end" }> => e.type.startsWith("server-tool"));
    expect(tools).toEqual([
      { type: "server-tool-start", id: "st_1", callId: "call_1", name: "service:datetime", arguments: '{"timezone":"UTC"}' },
      { type: "server-tool-end", id: "st_1", status: "completed", result: { datetime: "2025-07-15T18:30:00.000Z", timezone: "UTC" } },
      { type: "server-tool-start", id: "st_2", callId: "call_2", name: "service:web_fetch", arguments: '{"url":"https://x.example"}' },
      { type: "server-tool-end", id: "st_2", status: "failed", error: "timed out after 30000 ms" },
      { type: "server-tool-start", id: "st_3", callId: "call_3", name: "service:web_search", arguments: '{"query":"q"}' },
      { type: "server-tool-end", id: "st_3", status: "incomplete" },
    ]);
  });

  test("collect() of the replay gives back the parts, usage and finish", async () => {
    const back = await collect(eventsFromResponse(response));
    expect(back.parts).toEqual(response.parts);
    expect(back.usage).toEqual(response.usage);
    expect(back.finish).toEqual(response.finish);
  });
});
