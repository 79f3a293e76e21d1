/** Responses SSE → canonical events, from a transcript shaped like OpenAI's; collect(stream) ≡ the result. */
import { describe, expect, test } from "bun:test";
import { collect } from "../../../../core/model/collect.ts";
import type { StreamEvent } from "../../../../core/model/events.ts";
import { fromResponsesResult } from "../../../../providers/openai-responses/response.ts";
import { responsesStreamToEvents } from "../../../../providers/openai-responses/stream.ts";
import type { WireResponse } from "../../../../providers/openai-responses/wire.ts";
import { parseSse } from "../../../../core/provider-kit/sse.ts";
import { drain, providerCall, streamOf } from "../helpers.ts";
import { CALL_ID, ENCRYPTED, IDS, RESULT_TOOLS, sse, STREAM_TOOLS } from "./fixtures.ts";

function events(chunks: string[]): AsyncGenerator<StreamEvent> {
  return responsesStreamToEvents(parseSse(streamOf(chunks)), providerCall());
}

describe("responsesStreamToEvents", () => {
  test("the tool-calling transcript → exact canonical events", async () => {
    const out = await drain(events(sse(STREAM_TOOLS)));
    expect(out).toEqual([
      { type: "start", id: IDS.RESPONSE_ID, model: "gpt-5-2025-08-07", provider: "test-provider", created: 1755189700, serviceTier: "default" },
      { type: "reasoning-start", id: IDS.REASONING_ID, format: "openai-responses-v1", itemId: IDS.REASONING_ID },
      { type: "reasoning-delta", id: IDS.REASONING_ID, delta: "**Planning the lookup**", kind: "summary" },
      { type: "reasoning-delta", id: IDS.REASONING_ID, delta: "\n\nThe user wants Paris weather.", kind: "summary" },
      { type: "reasoning-delta", id: IDS.REASONING_ID, delta: "\n\n", kind: "summary" },
      { type: "reasoning-delta", id: IDS.REASONING_ID, delta: "**Calling the tool**", kind: "summary" },
      { type: "reasoning-end", id: IDS.REASONING_ID, encrypted: ENCRYPTED },
      { type: "text-start", id: `${IDS.MESSAGE_ID}:0` },
      { type: "text-delta", id: `${IDS.MESSAGE_ID}:0`, delta: "Let me" },
      { type: "text-delta", id: `${IDS.MESSAGE_ID}:0`, delta: " check." },
      { type: "text-end", id: `${IDS.MESSAGE_ID}:0` },
      { type: "tool-call-start", id: CALL_ID, name: "get_weather", itemId: IDS.CALL_ITEM_ID },
      { type: "tool-call-delta", id: CALL_ID, delta: '{"city":' },
      { type: "tool-call-delta", id: CALL_ID, delta: '"Paris"}' },
      { type: "tool-call-end", id: CALL_ID },
      { type: "usage", usage: { input: { total: 328, cacheRead: 256, cacheWrite: 0 }, output: { total: 87, reasoning: 64 }, raw: RESULT_TOOLS.usage } },
      { type: "finish", finish: { reason: "tool_calls", raw: "completed" } },
    ]);
  });

  test("collect(stream) has the parts, finish and usage of the non-streamed result", async () => {
    const streamed = await collect(events(sse(STREAM_TOOLS)));
    const direct = fromResponsesResult(RESULT_TOOLS as WireResponse, providerCall());
    // The canonical stream joins summary parts into one (it has no summary index); the result keeps them apart.
    const reasoning = direct.parts[0];
    if (reasoning?.type !== "reasoning") throw new Error("expected reasoning first");
    expect(streamed.parts[0]).toEqual({ ...reasoning, summary: [(reasoning.summary ?? []).join("\n\n")] });
    expect(streamed.parts.slice(1)).toEqual(direct.parts.slice(1));
    expect(streamed.finish).toEqual(direct.finish);
    expect(streamed.usage).toEqual(direct.usage);
  });

  test("byte-level chunking does not matter", async () => {
    const whole = sse(STREAM_TOOLS).join("");
    const split = whole.match(/[\s\S]{1,7}/g) ?? [];
    expect(await drain(events(split))).toEqual(await drain(events([whole])));
  });

  test("response.incomplete → finish length", async () => {
    const out = await drain(
      events(
        sse([
          { type: "response.created", response: { id: "r", status: "in_progress" } },
          { type: "response.output_item.added", output_index: 0, item: { id: "m", type: "message", content: [], role: "assistant" } },
          { type: "response.output_text.delta", item_id: "m", output_index: 0, content_index: 0, delta: "Once", logprobs: [] },
          { type: "response.incomplete", response: { id: "r", status: "incomplete", incomplete_details: { reason: "max_output_tokens" }, usage: { input_tokens: 3, output_tokens: 16 } } },
        ]),
      ),
    );
    expect(out.slice(1).map((e) => e.type)).toEqual(["text-start", "text-delta", "text-end", "usage", "finish"]);
    expect(out.at(-1)).toEqual({ type: "finish", finish: { reason: "length", raw: "max_output_tokens" } });
  });

  test("items sent only whole in output_item.done still produce complete parts", async () => {
    const out = await collect(
      events(
        sse([
          { type: "response.created", response: { id: "r" } },
          { type: "response.output_item.done", output_index: 0, item: { id: "rs", type: "reasoning", summary: [{ type: "summary_text", text: "S" }], content: [{ type: "reasoning_text", text: "T" }], encrypted_content: "E" } },
          { type: "response.output_item.done", output_index: 1, item: { id: "m", type: "message", content: [{ type: "output_text", text: "Hi", annotations: [] }] } },
          { type: "response.output_item.done", output_index: 2, item: { id: "fc", type: "function_call", call_id: "c", name: "f", arguments: "{}" } },
          { type: "response.completed", response: { id: "r", status: "completed" } },
        ]),
      ),
    );
    expect(out.parts).toEqual([
      { type: "reasoning", text: "T", summary: ["S"], id: "rs", format: "openai-responses-v1", encrypted: "E" },
      { type: "text", text: "Hi" },
      { type: "tool-call", id: "c", name: "f", arguments: "{}", itemId: "fc" },
    ]);
    expect(out.finish.reason).toBe("tool_calls");
  });

  test("annotations and refusals", async () => {
    const annotation = { type: "url_citation", url: "https://x.test", start_index: 0, end_index: 2, title: "x" };
    const out = await collect(
      events(
        sse([
          { type: "response.created", response: { id: "r" } },
          { type: "response.output_item.added", output_index: 0, item: { id: "m", type: "message", content: [] } },
          { type: "response.content_part.added", item_id: "m", output_index: 0, content_index: 0, part: { type: "output_text", text: "" } },
          { type: "response.output_text.delta", item_id: "m", output_index: 0, content_index: 0, delta: "Hi" },
          { type: "response.output_text.annotation.added", item_id: "m", output_index: 0, content_index: 0, annotation_index: 0, annotation },
          { type: "response.content_part.done", item_id: "m", output_index: 0, content_index: 0, part: { type: "output_text", text: "Hi", annotations: [annotation] } },
          { type: "response.content_part.added", item_id: "m", output_index: 0, content_index: 1, part: { type: "refusal", refusal: "" } },
          { type: "response.refusal.delta", item_id: "m", output_index: 0, content_index: 1, delta: "No." },
          { type: "response.output_item.done", output_index: 0, item: { id: "m", type: "message", content: [] } },
          { type: "response.completed", response: { id: "r", status: "completed" } },
        ]),
      ),
    );
    expect(out.parts).toEqual([{ type: "text", text: "Hi", annotations: [annotation] }, { type: "refusal", text: "No." }]);
  });

  test("response.failed → error event with the mapped type", async () => {
    const out = await drain(
      events(sse([{ type: "response.created", response: { id: "r" } }, { type: "response.failed", response: { id: "r", status: "failed", error: { code: "server_error", message: "The server had an error" } } }])),
    );
    const last = out.at(-1);
    expect(last?.type).toBe("error");
    if (last?.type === "error") {
      expect(last.error.type).toBe("provider_unavailable");
      expect(last.error.message).toBe("The server had an error");
    }
  });

  test("an `error` event → error event (rate limit)", async () => {
    const out = await drain(events(sse([{ type: "response.created", response: { id: "r" } }, { type: "error", code: "rate_limit_exceeded", message: "Slow down", param: null }])));
    const last = out.at(-1);
    expect(last?.type === "error" && last.error.type).toBe("rate_limit_exceeded");
  });

  test("a stream cut before its terminal event → error, never a silent end", async () => {
    const cut = sse(STREAM_TOOLS).slice(0, 10);
    const out = await drain(events(cut));
    expect(out.at(-1)).toMatchObject({ type: "error", error: { type: "provider_unavailable" } });
    const empty = await drain(events([]));
    expect(empty.map((e) => e.type)).toEqual(["start", "error"]);
  });

  test("hosted-tool items in a stream are reported, not silently dropped", async () => {
    const seen: string[] = [];
    const { StreamItems } = await import("../../../../providers/openai-responses/stream-items.ts");
    const items = new StreamItems(() => "call_x", (type) => seen.push(type));
    const out: StreamEvent[] = [];
    items.handle({ type: "response.output_item.added", output_index: 0, item: { id: "fs_1", type: "file_search_call" } }, out);
    items.handle({ type: "response.output_item.done", output_index: 0, item: { id: "fs_1", type: "file_search_call", status: "completed" } }, out);
    expect(out).toEqual([]);
    expect(seen).toEqual(["file_search_call"]);
  });

  test("malformed data → error event", async () => {
    const out = await drain(events(["event: response.created\ndata: {not json\n\n"]));
    expect(out.map((e) => e.type)).toEqual(["start", "error"]);
  });
});
