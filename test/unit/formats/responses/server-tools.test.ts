/**
 * Server tools on Responses: `service:*` output items between per-turn message items, their stream
 * events, `server_tool_use_details`, citations, and replayed items in `input`.
 */
import { describe, expect, test } from "bun:test";
import { encodeResponses } from "../../../../core/formats/responses/encode.ts";
import { responsesFormat } from "../../../../core/formats/responses/index.ts";
import { streamResponses } from "../../../../core/formats/responses/stream.ts";
import { collect } from "../../../../core/model/collect.ts";
import type { StreamEvent } from "../../../../core/model/events.ts";
import { formatClient } from "../openai-client.ts";
import { ANSWER, CITATION, DATETIME_RESULT, DATETIME_RUN, SEARCH_RESULT, SEARCH_RUN } from "../server-tool-fixtures.ts";
import { context, drain, parseFrames, parse, rejection, replay, type Frame } from "./helpers.ts";

type Json = Record<string, unknown>;

async function encoded(events: StreamEvent[]): Promise<Json> {
  return encodeResponses(await collect(replay(events)), context());
}

async function streamed(events: StreamEvent[]): Promise<Frame[]> {
  return parseFrames(await drain(streamResponses(replay(events), context({ stream: true }))));
}

function withoutCompletedAt(value: Json): Json {
  const { completed_at: _ignored, ...rest } = value;
  return rest;
}

const DATETIME_ITEM = {
  type: "service:datetime",
  id: "st_01",
  call_id: "call_abc",
  status: "completed",
  arguments: '{"timezone":"America/New_York"}',
  ...DATETIME_RESULT,
};

describe("Responses result with server tools", () => {
  test("[text, datetime, text]: a message item per turn around the tool's item", async () => {
    const body = await encoded(DATETIME_RUN);
    expect(body.output).toEqual([
      { id: "msg_gw_gen-1_0", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "Let me check the time.", annotations: [] }] },
      DATETIME_ITEM,
      { id: "msg_gw_gen-1_2", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "It is 14:30 in New York.", annotations: [] }] },
    ]);
    expect((body.usage as Json).server_tool_use_details).toEqual({ tool_calls_requested: 1, tool_calls_executed: 1, web_search_requests: 0 });
  });

  test("web_search, a failed web_fetch, and the answer's citation as is", async () => {
    const body = await encoded(SEARCH_RUN);
    const output = body.output as Json[];
    expect(output.map((item) => item.type)).toEqual(["message", "service:web_search", "service:web_fetch", "message"]);
    expect(output[1]).toEqual({
      type: "service:web_search",
      id: "st_search",
      call_id: "call_s",
      status: "completed",
      arguments: '{"query":"bun 1.2 release"}',
      action: { type: "search", query: "bun 1.2 release", sources: SEARCH_RESULT.results.map((r) => ({ type: "url", url: r.url })) },
    });
    expect(output[2]).toEqual({
      type: "service:web_fetch",
      id: "st_fetch",
      call_id: "call_f",
      status: "failed",
      arguments: '{"url":"https://bun.sh/missing"}',
      url: "https://bun.sh/missing",
      error: "HTTP 404: Not Found",
    });
    expect((output[3] as Json).content).toEqual([{ type: "output_text", text: ANSWER, annotations: [CITATION] }]);
    expect((body.usage as Json).server_tool_use_details).toEqual({ tool_calls_requested: 2, tool_calls_executed: 2, web_search_requests: 1 });
  });

  test("no server tools: no server_tool_use_details", async () => {
    const body = await encoded(DATETIME_RUN.map((e) => (e.type === "usage" ? { ...e, usage: { ...e.usage, serverTools: undefined } } : e)));
    expect(body.usage).not.toHaveProperty("server_tool_use_details");
  });
});

describe("Responses stream with server tools", () => {
  test("added in_progress with the call only, done with the full item; indexes and sequence numbers in order", async () => {
    const frames = await streamed(DATETIME_RUN);
    const items = frames.filter((f) => f.event.startsWith("response.output_item."));
    expect(items.map((f) => `${f.event.slice("response.output_item.".length)}@${String(f.data.output_index)}`)).toEqual(["added@0", "done@0", "added@1", "done@1", "added@2", "done@2"]);
    expect(items[2]?.data.item).toEqual({ type: "service:datetime", id: "st_01", call_id: "call_abc", status: "in_progress", arguments: '{"timezone":"America/New_York"}' });
    expect(items[3]?.data.item).toEqual(DATETIME_ITEM);
    expect(frames.map((f) => f.data.sequence_number)).toEqual(frames.map((_, i) => i));
    // The second turn's text goes to the new message item.
    const deltas = frames.filter((f) => f.event === "response.output_text.delta");
    expect(deltas.map((f) => [f.data.output_index, f.data.item_id])).toEqual([
      [0, "msg_gw_gen-1_0"],
      [0, "msg_gw_gen-1_0"],
      [2, "msg_gw_gen-1_2"],
    ]);
  });

  test("calls ending out of order keep the output_index they were announced with", async () => {
    const frames = await streamed(SEARCH_RUN);
    const done = frames.filter((f) => f.event === "response.output_item.done").map((f) => [f.data.output_index, (f.data.item as Json).id]);
    expect(done).toEqual([
      [0, "msg_gw_gen-1_0"],
      [2, "st_fetch"],
      [1, "st_search"],
      [3, "msg_gw_gen-1_3"],
    ]);
  });

  test("the citation is announced with output_text.annotation.added before the text's done events", async () => {
    const frames = await streamed(SEARCH_RUN);
    const at = (event: string) => frames.findIndex((f) => f.event === event && f.data.output_index === 3);
    const added = frames[at("response.output_text.annotation.added")];
    expect(added?.data).toMatchObject({ item_id: "msg_gw_gen-1_3", output_index: 3, content_index: 0, annotation_index: 0, annotation: CITATION });
    expect(at("response.output_text.annotation.added")).toBeLessThan(at("response.output_text.done"));
  });

  for (const [name, events] of Object.entries({ datetime: DATETIME_RUN, search: SEARCH_RUN })) {
    test(`${name}: response.completed equals the non-streamed result`, async () => {
      const frames = await streamed(events);
      const completed = frames.at(-1);
      expect(completed?.event).toBe("response.completed");
      const collected = encodeResponses(await collect(replay(events)), context({ stream: true }));
      expect(withoutCompletedAt(completed?.data.response as Json)).toEqual(withoutCompletedAt(collected));
    });
  }

  test("a running tool's progress becomes response.<event> on its item; none for a tool not running", async () => {
    const progress = (id: string, event: string, data: Record<string, unknown>): StreamEvent => ({ type: "server-tool-progress", id, event, data });
    const events = SEARCH_RUN.flatMap((e): StreamEvent[] =>
      e.type === "server-tool-start" && e.id === "st_search" ? [e, progress("st_search", "fusion_call.panel.delta", { model: "a/b", delta: "hi", item_id: "spoofed" })] : e.type === "usage" ? [progress("st_search", "fusion_call.completed", {}), e] : [e],
    );
    const frames = await streamed(events);
    const shown = frames.filter((f) => f.event.startsWith("response.fusion_call."));
    expect(shown.map((f) => f.data)).toEqual([{ type: "response.fusion_call.panel.delta", model: "a/b", delta: "hi", item_id: "st_search", output_index: 1, sequence_number: expect.any(Number) }]);
    expect(frames.map((f) => f.data.sequence_number)).toEqual(frames.map((_, i) => i));
    // Nothing of it in the result.
    const completed = frames.at(-1)!;
    const collected = encodeResponses(await collect(replay(events)), context({ stream: true }));
    expect(withoutCompletedAt(completed.data.response as Json)).toEqual(withoutCompletedAt(collected));
  });

  test("a tool still running when the stream finishes is done as incomplete, as in the result", async () => {
    const events = DATETIME_RUN.filter((e) => e.type !== "server-tool-end");
    const frames = await streamed(events);
    const done = frames.find((f) => f.event === "response.output_item.done" && f.data.output_index === 1);
    expect(done?.data.item).toEqual({ type: "service:datetime", id: "st_01", call_id: "call_abc", status: "incomplete", arguments: '{"timezone":"America/New_York"}' });
    const collected = await encoded(events);
    expect((collected.output as Json[])[1]).toEqual(done?.data.item as Json);
  });

  test("the openai client's stream helper accepts the items and builds the same output", async () => {
    const params = { model: "openai/gpt-5", input: "When did Bun 1.2 ship?" };
    const final = await formatClient(responsesFormat, SEARCH_RUN).responses.stream(params).finalResponse();
    const created = await formatClient(responsesFormat, SEARCH_RUN).responses.create(params);
    // The helper adds `parsed: null` to each output_text (its structured-output slot); nothing else may differ.
    const unparsed = JSON.parse(JSON.stringify(final.output, (key, value: unknown) => (key === "parsed" ? undefined : value))) as unknown;
    expect(unparsed).toEqual(JSON.parse(JSON.stringify(created.output)));
    expect(final.output_text).toBe(`Searching.${ANSWER}`);
  });
});

describe("Responses input replaying server-tool items", () => {
  test("the items of a result decode into server-tool parts on one assistant message, in order", async () => {
    const output = (await encoded(SEARCH_RUN)).output as Json[];
    const request = parse({ model: "openai/gpt-5", input: [{ role: "user", content: "When did Bun 1.2 ship?" }, ...output, { role: "user", content: "Thanks" }] });
    expect(request.messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    const parts = request.messages[1]?.parts ?? [];
    expect(parts.map((p) => p.type)).toEqual(["text", "server-tool", "server-tool", "text"]);
    expect(parts[1]).toEqual({
      type: "server-tool",
      id: "st_search",
      callId: "call_s",
      name: "service:web_search",
      arguments: '{"query":"bun 1.2 release"}',
      status: "completed",
      result: { action: { type: "search", query: "bun 1.2 release", sources: SEARCH_RESULT.results.map((r) => ({ type: "url", url: r.url })) } },
    });
    expect(parts[2]).toEqual({
      type: "server-tool",
      id: "st_fetch",
      callId: "call_f",
      name: "service:web_fetch",
      arguments: '{"url":"https://bun.sh/missing"}',
      status: "failed",
      result: { url: "https://bun.sh/missing" },
      error: "HTTP 404: Not Found",
    });
    expect(request.warnings).toEqual([]);
  });

  test("a datetime item gives back the tool's result exactly; defaults for call_id and arguments", () => {
    const request = parse({ model: "m", input: [DATETIME_ITEM, { type: "service:datetime", id: "st_02", status: "in_progress" }] });
    expect(request.messages[0]?.parts).toEqual([
      { type: "server-tool", id: "st_01", callId: "call_abc", name: "service:datetime", arguments: '{"timezone":"America/New_York"}', status: "completed", result: DATETIME_RESULT },
      { type: "server-tool", id: "st_02", callId: "st_02", name: "service:datetime", arguments: "{}", status: "incomplete" },
    ]);
  });

  test("a service item without an id is rejected; other unknown items are still only warned about", () => {
    expect(rejection({ model: "m", input: [{ type: "service:datetime", status: "completed" }] }).message).toContain("input");
    const request = parse({ model: "m", input: [{ type: "web_search_call", id: "ws_1", status: "completed" }] });
    expect(request.warnings.map((w) => w.code)).toEqual(["unsupported_item"]);
  });
});
