import { describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import { GatewayError } from "../../../../core/errors.ts";
import { messagesFormat } from "../../../../core/formats/messages/index.ts";
import { PING_FRAME } from "../../../../core/formats/messages/stream.ts";
import { collect } from "../../../../core/model/collect.ts";
import type { EventStream, StreamEvent } from "../../../../core/model/events.ts";
import { encodeContext, frames, parseFrame, replay, TEXT_EVENTS, TOOL_EVENTS, usage } from "./helpers.ts";

/** The official SDK, fed our frames through a fake fetch: what a real client would see. */
function sdkFor(body: string, contentType = "text/event-stream"): Anthropic {
  return new Anthropic({
    apiKey: "test",
    baseURL: "http://gateway.test/api/v1",
    maxRetries: 0,
    fetch: async () => new Response(body, { status: 200, headers: { "content-type": contentType } }),
  });
}

const params = { model: "anthropic/claude-sonnet-4.5", max_tokens: 1024, messages: [{ role: "user" as const, content: "Hi" }] };

describe("messages stream: frames", () => {
  test("text: named frames in Anthropic's order, input usage in message_start, no [DONE]", async () => {
    const out = await frames(TEXT_EVENTS);
    const parsed = out.map(parseFrame);
    expect(parsed.map((f) => f.event)).toEqual([
      "message_start",
      "content_block_start",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    for (const f of parsed) expect(f.data.type).toBe(f.event);
    const start = parsed[0]?.data.message as Record<string, unknown>;
    expect(start).toMatchObject({ id: "gen-123", type: "message", role: "assistant", model: "claude-sonnet-4-5-20250929", content: [], stop_reason: null, provider: "anthropic" });
    expect(start.usage).toMatchObject({ input_tokens: 500, cache_read_input_tokens: 1500, cache_creation_input_tokens: 100, output_tokens: 1 });
    expect(parsed[1]?.data).toEqual({ type: "content_block_start", index: 0, content_block: { type: "text", text: "", citations: null } });
    expect(parsed[2]?.data).toEqual({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hello" } });
    expect(parsed[5]?.data).toMatchObject({
      delta: { stop_reason: "end_turn", stop_sequence: null, stop_details: null },
      usage: { input_tokens: 500, cache_read_input_tokens: 1500, cache_creation_input_tokens: 100, output_tokens: 12 },
    });
    expect(out.join("")).not.toContain("[DONE]");
  });

  test("thinking with signature_delta, then a tool call as input_json_delta partials; indexes are the encoder's", async () => {
    const parsed = (await frames(TOOL_EVENTS)).map(parseFrame);
    const blocks = parsed.filter((f) => f.event.startsWith("content_block")).map((f) => f.data);
    expect(blocks).toEqual([
      { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "", signature: "" } },
      { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "User wants weather." } },
      { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: "EqQBCkYIBxgCKkA=" } },
      { type: "content_block_stop", index: 0 },
      { type: "content_block_start", index: 1, content_block: { type: "text", text: "", citations: null } },
      { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "Checking." } },
      { type: "content_block_stop", index: 1 },
      { type: "content_block_start", index: 2, content_block: { type: "tool_use", id: "toolu_01A", name: "get_weather", input: {} } },
      { type: "content_block_delta", index: 2, delta: { type: "input_json_delta", partial_json: '{"city": ' } },
      { type: "content_block_delta", index: 2, delta: { type: "input_json_delta", partial_json: '"Paris"}' } },
      { type: "content_block_stop", index: 2 },
    ]);
    const delta = parsed.find((f) => f.event === "message_delta")?.data;
    expect(delta).toMatchObject({ delta: { stop_reason: "tool_use" }, usage: { output_tokens: 85, output_tokens_details: { thinking_tokens: 30 } } });
  });

  test("redacted thinking is one opaque block", async () => {
    const parsed = (
      await frames([
        { type: "start", id: "m", model: "c", provider: "anthropic", created: 0 },
        { type: "reasoning-start", id: "r0", format: "anthropic-claude-v1" },
        { type: "reasoning-end", id: "r0", redacted: "EmwKAhgB" },
        { type: "finish", finish: { reason: "stop" } },
      ])
    ).map(parseFrame);
    expect(parsed.slice(1, 3).map((f) => f.data)).toEqual([
      { type: "content_block_start", index: 0, content_block: { type: "redacted_thinking", data: "EmwKAhgB" } },
      { type: "content_block_stop", index: 0 },
    ]);
  });

  test("an error mid-stream ends with `event: error` carrying error_type, and no message_stop", async () => {
    const events: StreamEvent[] = [
      ...TEXT_EVENTS.slice(0, 4),
      { type: "error", error: new GatewayError("provider_overloaded", "Overloaded", { status: 529 }) },
      { type: "text-delta", id: "text-0", delta: "never sent" },
    ];
    const parsed = (await frames(events)).map(parseFrame);
    const last = parsed.at(-1);
    expect(last?.event).toBe("error");
    expect(last?.data).toEqual({ type: "error", error: { type: "overloaded_error", code: 529, message: "Overloaded", metadata: { error_type: "provider_overloaded" }, error_type: "provider_overloaded" } });
    expect(parsed.some((f) => f.event === "message_stop")).toBe(false);
    expect(parsed.map((f) => f.event)).toEqual(["message_start", "content_block_start", "content_block_delta", "error"]);
  });

  test("a source that throws becomes a generic in-band error (no internals)", async () => {
    async function* broken(): EventStream {
      yield { type: "start", id: "m", model: "c", provider: "p", created: 0 };
      throw new Error("socket hang up at 10.0.0.3");
    }
    const out: string[] = [];
    for await (const frame of messagesFormat.stream(broken(), encodeContext({ trailer: { serviceMetadata: { a: 1 } } }))) out.push(frame);
    expect(parseFrame(out.at(-1) as string).data).toEqual({ type: "error", error: { type: "api_error", code: 500, message: "Internal server error", metadata: { error_type: "server" }, error_type: "server" } });
  });

  test("ping frame is Anthropic's keep-alive, and the format's keep-alive frame", () => {
    expect(PING_FRAME).toBe('event: ping\ndata: {"type": "ping"}\n\n');
    expect(messagesFormat.keepAliveFrame).toBe(PING_FRAME);
  });

  test("debug echo of the upstream body comes first and the SDK tolerates it", async () => {
    const out = await frames([{ type: "debug", upstreamBody: { model: "claude" } }, ...TEXT_EVENTS]);
    expect(parseFrame(out[0] as string)).toEqual({ event: "debug", data: { type: "debug", upstream_body: { model: "claude" } } });
    const message = await sdkFor(out.join("")).messages.stream(params).finalMessage();
    expect(message.content).toHaveLength(1);
  });

  test("service_metadata rides on message_delta when opted in", async () => {
    const parsed = (await frames(TEXT_EVENTS, encodeContext({ trailer: { serviceMetadata: { strategy: "direct" } } }))).map(parseFrame);
    expect(parsed.find((f) => f.event === "message_delta")?.data.service_metadata).toEqual({ strategy: "direct" });
  });
});

describe("messages stream ≡ encode(collect(stream)), as the official SDK sees them", () => {
  const scripts: Record<string, StreamEvent[]> = {
    text: TEXT_EVENTS,
    "thinking + tool use": TOOL_EVENTS,
    "stop sequence + citations": [
      { type: "start", id: "m", model: "c", provider: "openai", created: 0 },
      { type: "text-start", id: "t" },
      { type: "text-delta", id: "t", delta: "See docs" },
      { type: "text-end", id: "t", annotations: [{ type: "url_citation", url: "https://d.example", title: "D", start_index: 4, end_index: 8 }] },
      { type: "finish", finish: { reason: "stop", stopSequence: "END" } },
      { type: "usage", usage: usage(10, 3) },
    ],
  };
  for (const [name, events] of Object.entries(scripts)) {
    test(name, async () => {
      const ctx = encodeContext();
      const body = (await frames(events, ctx)).join("");
      const streamed = await sdkFor(body).messages.stream(params).finalMessage();
      const collected = messagesFormat.encode(await collect(replay(events)), ctx);
      expect(JSON.parse(JSON.stringify(streamed.content))).toEqual(collected.content);
      expect(streamed.stop_reason).toBe(collected.stop_reason as typeof streamed.stop_reason);
      expect(streamed.stop_sequence).toBe(collected.stop_sequence as string | null);
      const u = collected.usage as Record<string, unknown>;
      expect(streamed.usage).toMatchObject({
        input_tokens: u.input_tokens as number,
        output_tokens: u.output_tokens as number,
        cache_read_input_tokens: u.cache_read_input_tokens as number,
        cache_creation_input_tokens: u.cache_creation_input_tokens as number,
      });
      expect(streamed.id).toBe(collected.id as string);
    });
  }

  test("non-streaming: the SDK parses the encoded body", async () => {
    const ctx = encodeContext();
    const body = messagesFormat.encode(await collect(replay(TOOL_EVENTS)), ctx);
    const message = await sdkFor(JSON.stringify(body), "application/json").messages.create(params);
    expect(message.stop_reason).toBe("tool_use");
    expect(message.content.map((b) => b.type)).toEqual(["thinking", "text", "tool_use"]);
  });

  test("the SDK raises the in-band error", async () => {
    const events: StreamEvent[] = [...TEXT_EVENTS.slice(0, 4), { type: "error", error: new GatewayError("rate_limit_exceeded", "Slow down") }];
    const body = (await frames(events)).join("");
    const failure = await sdkFor(body).messages.stream(params).finalMessage().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(failure).toBeInstanceOf(Anthropic.APIError);
    expect((failure as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({ error: { type: "rate_limit_error", error_type: "rate_limit_exceeded" } });
  });
});
