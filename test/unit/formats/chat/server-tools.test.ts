/**
 * Server tools on chat completions: `message.server_tool_calls`, `delta.server_tool_calls` merged by index, the
 * usage counters, url citations in chat's nested shape, and replayed `server_tool_calls` on an assistant message.
 */
import { describe, expect, test } from "bun:test";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { decodeChat } from "../../../../core/formats/chat/decode.ts";
import { encodeChat } from "../../../../core/formats/chat/encode.ts";
import { ChatRequestSchema } from "../../../../core/formats/chat/schema.ts";
import { streamChat } from "../../../../core/formats/chat/stream.ts";
import { collect } from "../../../../core/model/collect.ts";
import type { StreamEvent } from "../../../../core/model/events.ts";
import { ANSWER, CITATION, DATETIME_RESULT, DATETIME_RUN, SEARCH_RESULT, SEARCH_RUN } from "../server-tool-fixtures.ts";
import { chatContext, drain, parseFrames, reassemble, replay } from "./helpers.ts";

const validator = TypeCompiler.Compile(ChatRequestSchema);

async function encoded(events: StreamEvent[]) {
  return encodeChat(await collect(replay(events)), chatContext({ includeUsage: true }));
}

async function chunks(events: StreamEvent[]) {
  return parseFrames(await drain(streamChat(replay(events), chatContext({ includeUsage: true }))));
}

describe("chat result with server tools", () => {
  test("[text, datetime, text]: content joins both turns, the call is listed with its result", async () => {
    const message = (await encoded(DATETIME_RUN)).choices[0]?.message;
    expect(message?.content).toBe("Let me check the time.It is 14:30 in New York.");
    expect(message?.server_tool_calls).toEqual([
      { id: "st_01", type: "service:datetime", call_id: "call_abc", arguments: '{"timezone":"America/New_York"}', status: "completed", result: DATETIME_RESULT },
    ]);
    expect(message).not.toHaveProperty("tool_calls");
  });

  test("calls in order; a failed one has an error and no result", async () => {
    const message = (await encoded(SEARCH_RUN)).choices[0]?.message;
    expect(message?.server_tool_calls).toEqual([
      { id: "st_search", type: "service:web_search", call_id: "call_s", arguments: '{"query":"bun 1.2 release"}', status: "completed", result: SEARCH_RESULT },
      { id: "st_fetch", type: "service:web_fetch", call_id: "call_f", arguments: '{"url":"https://bun.sh/missing"}', status: "failed", error: "HTTP 404: Not Found" },
    ]);
  });

  test("a canonical url citation is nested as chat's url_citation, its indexes counted in the joined content", async () => {
    const message = (await encoded(SEARCH_RUN)).choices[0]?.message;
    const offset = "Searching.".length;
    expect(message?.annotations).toEqual([
      { type: "url_citation", url_citation: { url: CITATION.url, title: CITATION.title, content: CITATION.content, start_index: offset, end_index: offset + 15 } },
    ]);
    expect(message?.content?.slice(offset, offset + 15)).toBe(ANSWER.slice(0, 15));
  });

  test("other annotation shapes pass untouched", async () => {
    const chatShaped = { type: "url_citation", url_citation: { url: "https://a.example", title: "A", start_index: 0, end_index: 3 } };
    const anthropic = { type: "char_location", cited_text: "x", document_index: 0, start_char_index: 0, end_char_index: 1 };
    const events = DATETIME_RUN.map((e): StreamEvent => (e.type === "text-end" && e.id === "t2_msg_0" ? { ...e, annotations: [chatShaped, anthropic] } : e));
    expect((await encoded(events)).choices[0]?.message.annotations).toEqual([chatShaped, anthropic]);
  });

  test("usage: per-tool requests under server_tool_use, the loop's counters under server_tool_use_details", async () => {
    const usage = (await encoded(SEARCH_RUN)).usage;
    expect(usage.server_tool_use).toEqual({ web_search_requests: 1, web_fetch_requests: 1 });
    expect(usage.server_tool_use_details).toEqual({ tool_calls_requested: 2, tool_calls_executed: 2, web_search_requests: 1 });
  });
});

describe("chat stream with server tools", () => {
  test("an announcing delta at the start and a closing delta at the end, by index", async () => {
    const list = await chunks(SEARCH_RUN);
    const deltas = list.flatMap((c) => c.choices.flatMap((choice) => choice.delta.server_tool_calls ?? []));
    expect(deltas).toEqual([
      { index: 0, id: "st_search", type: "service:web_search", call_id: "call_s", arguments: '{"query":"bun 1.2 release"}', status: "in_progress" },
      { index: 1, id: "st_fetch", type: "service:web_fetch", call_id: "call_f", arguments: '{"url":"https://bun.sh/missing"}', status: "in_progress" },
      { index: 1, id: "st_fetch", type: "service:web_fetch", status: "failed", error: "HTTP 404: Not Found" },
      { index: 0, id: "st_search", type: "service:web_search", status: "completed", result: SEARCH_RESULT },
    ]);
  });

  for (const [name, events] of Object.entries({ datetime: DATETIME_RUN, search: SEARCH_RUN })) {
    test(`${name}: the reassembled stream equals the result`, async () => {
      expect(reassemble(await chunks(events))).toEqual(await encoded(events));
    });
  }

  test("a call still running at the finish is closed incomplete before the finish chunk, as the result shows it", async () => {
    const events = DATETIME_RUN.filter((e) => e.type !== "server-tool-end");
    const list = await chunks(events);
    const finishAt = list.findIndex((c) => c.choices[0]?.finish_reason !== null && c.choices[0]?.finish_reason !== undefined);
    expect(list[finishAt - 1]?.choices[0]?.delta.server_tool_calls).toEqual([{ index: 0, id: "st_01", type: "service:datetime", status: "incomplete" }]);
    expect(reassemble(list)).toEqual(await encoded(events));
  });
});

describe("chat request replaying server_tool_calls", () => {
  test("an assistant message's server_tool_calls decode first, then its text", async () => {
    const previous = (await encoded(SEARCH_RUN)).choices[0]?.message;
    const body = {
      model: "openai/gpt-5",
      messages: [{ role: "user", content: "When did Bun 1.2 ship?" }, previous, { role: "user", content: "Thanks" }],
    };
    expect(validator.Check(body)).toBe(true);
    const request = decodeChat(body, new Headers());
    expect(request.messages[1]?.parts).toEqual([
      { type: "server-tool", id: "st_search", callId: "call_s", name: "service:web_search", arguments: '{"query":"bun 1.2 release"}', status: "completed", result: SEARCH_RESULT },
      { type: "server-tool", id: "st_fetch", callId: "call_f", name: "service:web_fetch", arguments: '{"url":"https://bun.sh/missing"}', status: "failed", error: "HTTP 404: Not Found" },
      { type: "text", text: `Searching.${ANSWER}` },
    ]);
    // `server_tool_calls` is a known field; the echoed `annotations` and `reasoning` keys are what they always were.
    expect(request.warnings.map((w) => w.field)).not.toContain("messages[1].server_tool_calls");
  });

  test("a minimal entry: call id and arguments default, no status means completed", () => {
    const body = { model: "m", messages: [{ role: "assistant", content: null, server_tool_calls: [{ id: "st_9", type: "service:datetime", result: DATETIME_RESULT }] }] };
    expect(validator.Check(body)).toBe(true);
    expect(decodeChat(body, new Headers()).messages[0]?.parts).toEqual([
      { type: "server-tool", id: "st_9", callId: "st_9", name: "service:datetime", arguments: "{}", status: "completed", result: DATETIME_RESULT },
    ]);
  });

  test("an entry without a tool type is rejected by the schema", () => {
    expect(validator.Check({ model: "m", messages: [{ role: "assistant", content: null, server_tool_calls: [{ id: "st_9" }] }] })).toBe(false);
  });
});
