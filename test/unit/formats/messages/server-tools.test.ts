/**
 * Server tools on Messages: a `server_tool_use` block and its result block per call, the same blocks
 * streamed with consecutive indexes, `usage.server_tool_use`, citations on text, and replayed pairs in a request.
 */
import { describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { messagesFormat } from "../../../../core/formats/messages/index.ts";
import { collect } from "../../../../core/model/collect.ts";
import type { StreamEvent } from "../../../../core/model/events.ts";
import { ANSWER, CITATION, DATETIME_RESULT, DATETIME_RUN, SEARCH_RESULT, SEARCH_RUN } from "../server-tool-fixtures.ts";
import { encodeContext, frames, parseFrame, replay } from "./helpers.ts";

type Json = Record<string, unknown>;

/** The agent loop names Messages calls `srvtoolu_…`. */
const messagesIds = (events: StreamEvent[]): StreamEvent[] => JSON.parse(JSON.stringify(events).replaceAll('"st_', '"srvtoolu_')) as StreamEvent[];
const DATETIME = messagesIds(DATETIME_RUN);
const SEARCH = messagesIds(SEARCH_RUN);

const check = TypeCompiler.Compile(messagesFormat.schema);

async function encoded(events: StreamEvent[]): Promise<Json> {
  return messagesFormat.encode(await collect(replay(events)), encodeContext());
}

/** What the official SDK builds from our frames. */
async function sdkMessage(events: StreamEvent[]) {
  const body = (await frames(events)).join("");
  const client = new Anthropic({ apiKey: "test", baseURL: "http://gateway.test/api/v1", maxRetries: 0, fetch: async () => new Response(body, { headers: { "content-type": "text/event-stream" } }) });
  return client.messages.stream({ model: "anthropic/claude-sonnet-4.5", max_tokens: 1024, messages: [{ role: "user", content: "Hi" }] }).finalMessage();
}

const DATETIME_BLOCKS = [
  { type: "text", text: "Let me check the time.", citations: null },
  { type: "server_tool_use", id: "srvtoolu_01", name: "service:datetime", input: { timezone: "America/New_York" } },
  { type: "service_datetime_tool_result", tool_use_id: "srvtoolu_01", content: DATETIME_RESULT },
  { type: "text", text: "It is 14:30 in New York.", citations: null },
];

describe("Messages result with server tools", () => {
  test("[text, datetime, text]: the call and its result block between the two texts", async () => {
    expect((await encoded(DATETIME)).content).toEqual(DATETIME_BLOCKS);
  });

  test("web_search results, a failed web_fetch, and the answer's citation", async () => {
    const content = (await encoded(SEARCH)).content as Json[];
    expect(content.map((b) => b.type)).toEqual(["text", "server_tool_use", "web_search_tool_result", "server_tool_use", "web_fetch_tool_result", "text"]);
    expect(content[2]).toEqual({
      type: "web_search_tool_result",
      tool_use_id: "srvtoolu_search",
      content: SEARCH_RESULT.results.map((r) => ({ type: "web_search_result", url: r.url, title: r.title, encrypted_content: "", page_age: null })),
    });
    expect(content[4]).toEqual({ type: "web_fetch_tool_result", tool_use_id: "srvtoolu_fetch", content: { type: "web_fetch_tool_error", error_code: "url_not_accessible" } });
    expect(content[5]).toEqual({
      type: "text",
      text: ANSWER,
      citations: [{ type: "web_search_result_location", url: CITATION.url, title: CITATION.title, cited_text: "Bun 1.2 shipped", encrypted_index: "" }],
    });
  });

  test("a fetched page is a text document; a failed search names its error code", async () => {
    const events: StreamEvent[] = [
      { type: "start", id: "m", model: "c", provider: "p", created: 0 },
      { type: "server-tool-start", id: "srvtoolu_f", callId: "toolu_1", name: "service:web_fetch", arguments: '{"url":"https://bun.sh"}' },
      { type: "server-tool-end", id: "srvtoolu_f", status: "completed", result: { url: "https://bun.sh/", title: "Bun", content: "# Bun", status: "completed", retrieved_at: "2025-07-15T18:30:00Z", status_code: 200 } },
      { type: "server-tool-start", id: "srvtoolu_s", callId: "toolu_2", name: "service:web_search", arguments: '{"query":""}' },
      { type: "server-tool-end", id: "srvtoolu_s", status: "failed", error: "invalid_tool_input: query must be a non-empty string" },
      { type: "finish", finish: { reason: "stop" } },
    ];
    const content = (await encoded(events)).content as Json[];
    expect(content[1]).toEqual({
      type: "web_fetch_tool_result",
      tool_use_id: "srvtoolu_f",
      content: {
        type: "web_fetch_result",
        url: "https://bun.sh/",
        retrieved_at: "2025-07-15T18:30:00Z",
        content: { type: "document", source: { type: "text", media_type: "text/plain", data: "# Bun" }, title: "Bun" },
      },
    });
    expect(content[3]).toEqual({ type: "web_search_tool_result", tool_use_id: "srvtoolu_s", content: { type: "web_search_tool_result_error", error_code: "invalid_tool_input" } });
  });

  test("any other failed tool shows {error}; a call that never finished has no result block", async () => {
    const events: StreamEvent[] = [
      { type: "start", id: "m", model: "c", provider: "p", created: 0 },
      { type: "server-tool-start", id: "srvtoolu_a", callId: "toolu_1", name: "service:image_generation", arguments: '{"prompt":"a cat"}' },
      { type: "server-tool-end", id: "srvtoolu_a", status: "failed", error: "timed out after 30000 ms" },
      { type: "server-tool-start", id: "srvtoolu_b", callId: "toolu_2", name: "service:datetime", arguments: "{}" },
      { type: "finish", finish: { reason: "stop" } },
    ];
    expect((await encoded(events)).content).toEqual([
      { type: "server_tool_use", id: "srvtoolu_a", name: "service:image_generation", input: { prompt: "a cat" } },
      { type: "service_image_generation_tool_result", tool_use_id: "srvtoolu_a", content: { error: "timed out after 30000 ms" } },
      { type: "server_tool_use", id: "srvtoolu_b", name: "service:datetime", input: {} },
    ]);
  });

  test("usage.server_tool_use: exactly the two request counters, 0 when missing; null without server tools", async () => {
    expect(((await encoded(SEARCH)).usage as Json).server_tool_use).toEqual({ web_search_requests: 1, web_fetch_requests: 1 });
    expect(((await encoded(DATETIME)).usage as Json).server_tool_use).toEqual({ web_search_requests: 0, web_fetch_requests: 0 });
    const plain = DATETIME.map((e) => (e.type === "usage" ? { ...e, usage: { ...e.usage, serverTools: undefined } } : e));
    expect(((await encoded(plain)).usage as Json).server_tool_use).toBeNull();
  });
});

describe("Messages stream with server tools", () => {
  test("use block with its arguments as one input_json_delta, result block at the end; indexes consecutive", async () => {
    const list = (await frames(DATETIME)).map(parseFrame).filter((f) => f.event.startsWith("content_block"));
    expect(list.map((f) => `${f.event}@${String(f.data.index)}`)).toEqual([
      "content_block_start@0",
      "content_block_delta@0",
      "content_block_delta@0",
      "content_block_stop@0",
      "content_block_start@1",
      "content_block_delta@1",
      "content_block_stop@1",
      "content_block_start@2",
      "content_block_stop@2",
      "content_block_start@3",
      "content_block_delta@3",
      "content_block_stop@3",
    ]);
    expect(list[4]?.data.content_block).toEqual({ type: "server_tool_use", id: "srvtoolu_01", name: "service:datetime", input: {} });
    expect(list[5]?.data.delta).toEqual({ type: "input_json_delta", partial_json: '{"timezone":"America/New_York"}' });
    expect(list[7]?.data.content_block).toEqual(DATETIME_BLOCKS[2]);
    const usage = (await frames(SEARCH)).map(parseFrame).find((f) => f.event === "message_delta")?.data.usage as Json;
    expect(usage.server_tool_use).toEqual({ web_search_requests: 1, web_fetch_requests: 1 });
  });

  test("calls of one step ending out of order still come out call, result, call, result", async () => {
    const starts = (await frames(SEARCH)).map(parseFrame).filter((f) => f.event === "content_block_start");
    expect(starts.map((f) => [f.data.index, (f.data.content_block as Json).type])).toEqual([
      [0, "text"],
      [1, "server_tool_use"],
      [2, "web_search_tool_result"],
      [3, "server_tool_use"],
      [4, "web_fetch_tool_result"],
      [5, "text"],
    ]);
  });

  const unfinished = DATETIME.filter((e) => e.type !== "server-tool-end");
  for (const [name, events] of Object.entries({ datetime: DATETIME, search: SEARCH, "unfinished call": unfinished })) {
    test(`${name}: the SDK's final message has the result's blocks`, async () => {
      const message = await sdkMessage(events);
      expect(JSON.parse(JSON.stringify(message.content))).toEqual((await encoded(events)).content);
    });
  }
});

describe("Messages request replaying server tool blocks", () => {
  test("each call and its result block decode into one server-tool part at the call's place", async () => {
    const previous = (await encoded(SEARCH)).content;
    const body = { model: "anthropic/claude-sonnet-4.5", max_tokens: 1024, messages: [{ role: "user", content: "When did Bun 1.2 ship?" }, { role: "assistant", content: previous }] };
    expect(check.Check(body)).toBe(true);
    const request = messagesFormat.decode(body, new Headers());
    expect(request.messages[1]?.parts).toEqual([
      { type: "text", text: "Searching." },
      {
        type: "server-tool",
        id: "srvtoolu_search",
        callId: "srvtoolu_search",
        name: "service:web_search",
        arguments: '{"query":"bun 1.2 release"}',
        status: "completed",
        result: { results: SEARCH_RESULT.results.map((r) => ({ url: r.url, title: r.title })) },
      },
      { type: "server-tool", id: "srvtoolu_fetch", callId: "srvtoolu_fetch", name: "service:web_fetch", arguments: '{"url":"https://bun.sh/missing"}', status: "failed", error: "url_not_accessible" },
      { type: "text", text: ANSWER, annotations: [{ type: "web_search_result_location", url: CITATION.url, title: CITATION.title, cited_text: "Bun 1.2 shipped", encrypted_index: "" }] },
    ]);
    expect(request.warnings).toEqual([]);
  });

  test("service_* results give back the tool's result or its error; a fetched document its text", () => {
    const body = {
      model: "m",
      max_tokens: 10,
      messages: [
        {
          role: "assistant",
          content: [
            ...DATETIME_BLOCKS.slice(1, 3),
            { type: "server_tool_use", id: "srvtoolu_2", name: "service:image_generation", input: { prompt: "a cat" } },
            { type: "service_image_generation_tool_result", tool_use_id: "srvtoolu_2", content: { error: "timed out" } },
            { type: "server_tool_use", id: "srvtoolu_3", name: "service:web_fetch", input: { url: "https://bun.sh" } },
            {
              type: "web_fetch_tool_result",
              tool_use_id: "srvtoolu_3",
              content: { type: "web_fetch_result", url: "https://bun.sh/", retrieved_at: "2025-07-15T18:30:00Z", content: { type: "document", source: { type: "text", media_type: "text/plain", data: "# Bun" }, title: "Bun" } },
            },
            { type: "server_tool_use", id: "srvtoolu_4", name: "service:datetime", input: {} },
          ],
        },
      ],
    };
    expect(check.Check(body)).toBe(true);
    expect(messagesFormat.decode(body, new Headers()).messages[0]?.parts).toEqual([
      { type: "server-tool", id: "srvtoolu_01", callId: "srvtoolu_01", name: "service:datetime", arguments: '{"timezone":"America/New_York"}', status: "completed", result: DATETIME_RESULT },
      { type: "server-tool", id: "srvtoolu_2", callId: "srvtoolu_2", name: "service:image_generation", arguments: '{"prompt":"a cat"}', status: "failed", error: "timed out" },
      {
        type: "server-tool",
        id: "srvtoolu_3",
        callId: "srvtoolu_3",
        name: "service:web_fetch",
        arguments: '{"url":"https://bun.sh"}',
        status: "completed",
        result: { url: "https://bun.sh/", title: "Bun", content: "# Bun", retrieved_at: "2025-07-15T18:30:00Z" },
      },
      { type: "server-tool", id: "srvtoolu_4", callId: "srvtoolu_4", name: "service:datetime", arguments: "{}", status: "incomplete" },
    ]);
  });

  test("a result block without its call is dropped with a warning; server tool blocks in a user turn are a 400", () => {
    const orphan = { type: "service_datetime_tool_result", tool_use_id: "srvtoolu_x", content: DATETIME_RESULT };
    const request = messagesFormat.decode({ model: "m", max_tokens: 10, messages: [{ role: "assistant", content: [{ type: "text", text: "Hi" }, orphan] }] }, new Headers());
    expect(request.messages[0]?.parts).toEqual([{ type: "text", text: "Hi" }]);
    expect(request.warnings).toEqual([expect.objectContaining({ field: "messages[0].content[1]" })]);
    expect(() => messagesFormat.decode({ model: "m", max_tokens: 10, messages: [{ role: "user", content: [orphan] }] }, new Headers())).toThrow("only valid in assistant messages");
  });

  test("the schema wants a tool_use_id on a result block and an id and name on a call", () => {
    const body = (block: Json) => ({ model: "m", max_tokens: 10, messages: [{ role: "assistant", content: [block] }] });
    expect(check.Check(body({ type: "web_search_tool_result", content: [] }))).toBe(false);
    expect(check.Check(body({ type: "server_tool_use", id: "srvtoolu_1", input: {} }))).toBe(false);
    expect(check.Check(body({ type: "advisor_tool_result", tool_use_id: "srvtoolu_1", content: { type: "advisor_result", text: "ok" } }))).toBe(true);
  });
});
