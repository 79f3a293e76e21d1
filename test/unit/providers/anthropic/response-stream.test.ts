import { describe, expect, test } from "bun:test";
import { collect } from "../../../../core/model/collect.ts";
import type { StreamEvent } from "../../../../core/model/events.ts";
import { fromAnthropicMessage } from "../../../../providers/anthropic/response.ts";
import { anthropicStreamToEvents } from "../../../../providers/anthropic/stream.ts";
import type { WireMessage } from "../../../../providers/anthropic/wire.ts";
import { parseSse } from "../../../../core/provider-kit/sse.ts";
import { drain, providerCall, streamOf, target } from "../helpers.ts";
import { CACHE_WRITE_MESSAGE, sse, TOOL_MESSAGE, TOOL_STREAM } from "./fixtures.ts";

const call = () => providerCall({ target: target({ providerId: "anthropic", upstreamModel: "claude-sonnet-4-5-20250929" }) });
const events = (text: string | string[], c = call()) => drain(anthropicStreamToEvents(parseSse(streamOf(Array.isArray(text) ? text : [text])), c));

describe("anthropic response", () => {
  test("thinking + text + tool_use, cache reads counted into input.total", () => {
    const response = fromAnthropicMessage(TOOL_MESSAGE as WireMessage, call());
    expect(response).toMatchObject({
      id: "msg_01XFDUDYJgAACzvnptvVoYEL",
      model: "claude-sonnet-4-5-20250929",
      provider: "anthropic",
      created: 1_700_000_000,
      serviceTier: "standard",
      finish: { reason: "tool_calls", raw: "tool_use" },
      warnings: [],
    });
    expect(response.parts).toEqual([
      {
        type: "reasoning",
        text: "The user wants the weather in San Francisco.",
        format: "anthropic-claude-v1",
        signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds",
      },
      { type: "text", text: "Let me check the weather." },
      { type: "tool-call", id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", name: "get_weather", arguments: '{"location":"San Francisco, CA"}' },
    ]);
    expect(response.usage.input).toEqual({ total: 2272, cacheRead: 1800, cacheWrite: 0 });
    expect(response.usage.output).toEqual({ total: 89, reasoning: 31 });
  });

  test("cache writes, redacted thinking, citations kept as annotations", () => {
    const response = fromAnthropicMessage(CACHE_WRITE_MESSAGE as WireMessage, call());
    expect(response.parts[0]).toEqual({ type: "reasoning", text: "", redacted: CACHE_WRITE_MESSAGE.content[0]?.data as string, format: "anthropic-claude-v1" });
    expect(response.parts[1]).toMatchObject({ type: "text", text: "The grass is green.", annotations: [{ type: "char_location" }] });
    expect(response.usage.input).toEqual({ total: 2069, cacheRead: 0, cacheWrite: 2048 });
    expect(response.finish).toEqual({ reason: "stop", raw: "end_turn" });
  });

  const stopCases: Array<[string, string | null, Record<string, unknown>]> = [
    ["end_turn", null, { reason: "stop", raw: "end_turn" }],
    ["stop_sequence", "###", { reason: "stop", raw: "stop_sequence", stopSequence: "###" }],
    ["max_tokens", null, { reason: "length", raw: "max_tokens" }],
    ["tool_use", null, { reason: "tool_calls", raw: "tool_use" }],
    ["pause_turn", null, { reason: "pause", raw: "pause_turn" }],
    ["refusal", null, { reason: "refusal", raw: "refusal" }],
    ["model_context_window_exceeded", null, { reason: "context_window", raw: "model_context_window_exceeded" }],
  ];
  for (const [stopReason, stopSequence, finish] of stopCases) {
    test(`stop_reason ${stopReason}`, () => {
      const response = fromAnthropicMessage({ ...TOOL_MESSAGE, content: [], stop_reason: stopReason, stop_sequence: stopSequence }, call());
      expect(response.finish).toEqual(finish as never);
    });
  }

  test("server-tool blocks other than web search are reported, not silently dropped", () => {
    const c = call();
    const response = fromAnthropicMessage({ ...TOOL_MESSAGE, content: [{ type: "server_tool_use", id: "srvtoolu_1", name: "code_execution", input: {} }] }, c);
    expect(response.parts).toEqual([]);
    expect(c.request.warnings.map((w) => w.code)).toEqual(["unsupported_field"]);
  });
});

describe("anthropic stream", () => {
  test("events of a thinking + tool-use stream, with usage merged across message_start and message_delta", async () => {
    const out = await events(TOOL_STREAM);
    expect(out).toEqual([
      // The tier comes from message_start's usage, as the non-streamed response takes it from the body's usage.
      { type: "start", id: "msg_01XFDUDYJgAACzvnptvVoYEL", model: "claude-sonnet-4-5-20250929", provider: "anthropic", created: 1_700_000_000, serviceTier: "standard" },
      expect.objectContaining({ type: "usage", usage: expect.objectContaining({ input: { total: 2272, cacheRead: 1800, cacheWrite: 0 }, output: { total: 2, reasoning: 0 } }) }),
      { type: "reasoning-start", id: "reasoning-0", format: "anthropic-claude-v1" },
      { type: "reasoning-delta", id: "reasoning-0", delta: "The user wants the weather" },
      { type: "reasoning-delta", id: "reasoning-0", delta: " in San Francisco." },
      { type: "reasoning-end", id: "reasoning-0", signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds" },
      { type: "text-start", id: "text-1" },
      { type: "text-delta", id: "text-1", delta: "Let me check" },
      { type: "text-delta", id: "text-1", delta: " the weather." },
      { type: "text-end", id: "text-1" },
      { type: "tool-call-start", id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", name: "get_weather" },
      { type: "tool-call-delta", id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", delta: '{"location":' },
      { type: "tool-call-delta", id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", delta: ' "San Francisco, CA"}' },
      { type: "tool-call-end", id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6" },
      expect.objectContaining({ type: "usage", usage: expect.objectContaining({ input: { total: 2272, cacheRead: 1800, cacheWrite: 0 }, output: { total: 89, reasoning: 31 } }) }),
      { type: "finish", finish: { reason: "tool_calls", raw: "tool_use" } },
    ]);
  });

  test("stream ≡ non-streaming body: collect(events) has the same parts, finish and usage", async () => {
    async function* replay(list: StreamEvent[]) {
      yield* list;
    }
    const collected = await collect(replay(await events(TOOL_STREAM)));
    const direct = fromAnthropicMessage(TOOL_MESSAGE as WireMessage, call());
    expect(collected.parts).toEqual(direct.parts.map((p) => (p.type === "tool-call" ? { ...p, arguments: '{"location": "San Francisco, CA"}' } : p)));
    expect(collected.finish).toEqual(direct.finish);
    expect(collected.usage.input).toEqual(direct.usage.input);
    expect(collected.usage.output).toEqual(direct.usage.output);
  });

  test("bytes split mid-frame and mid-character still parse", async () => {
    const bytes = new TextEncoder().encode(TOOL_STREAM.replace("Let me check", "Let me chéck"));
    const chunks = Array.from({ length: Math.ceil(bytes.length / 7) }, (_, i) => bytes.slice(i * 7, i * 7 + 7));
    const out = await drain(anthropicStreamToEvents(parseSse(streamOf(chunks)), call()));
    expect(out).toContainEqual({ type: "text-delta", id: "text-1", delta: "Let me chéck" });
    expect(out.at(-1)).toEqual({ type: "finish", finish: { reason: "tool_calls", raw: "tool_use" } });
  });

  test("citations_delta → text-end annotations; redacted thinking block", async () => {
    const out = await events(
      sse([
        { type: "message_start", message: { id: "msg_2", model: "claude-opus-4-1", usage: { input_tokens: 5, output_tokens: 1 } } },
        { type: "content_block_start", index: 0, content_block: { type: "redacted_thinking", data: "EmwKAhgB" } },
        { type: "content_block_stop", index: 0 },
        { type: "content_block_start", index: 1, content_block: { type: "text", text: "" } },
        { type: "content_block_delta", index: 1, delta: { type: "citations_delta", citation: { type: "char_location", cited_text: "g" } } },
        { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "Green." } },
        { type: "content_block_stop", index: 1 },
        { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 4 } },
        { type: "message_stop" },
      ]),
    );
    expect(out.filter((e) => e.type.startsWith("reasoning"))).toEqual([
      { type: "reasoning-start", id: "reasoning-0", format: "anthropic-claude-v1" },
      { type: "reasoning-end", id: "reasoning-0", redacted: "EmwKAhgB" },
    ]);
    expect(out).toContainEqual({ type: "text-end", id: "text-1", annotations: [{ type: "char_location", cited_text: "g" }] });
  });

  test("an error event mid-stream → mapped error event, last", async () => {
    const cut = TOOL_STREAM.split("event: content_block_start").slice(0, 2).join("event: content_block_start");
    const out = await events(cut + sse([{ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }] as never));
    const last = out.at(-1);
    expect(last?.type).toBe("error");
    if (last?.type === "error") {
      expect(last.error.type).toBe("provider_overloaded");
      expect(last.error.status).toBe(529);
      expect(last.error.retryable).toBe(true);
    }
  });

  test("a stream that stops before message_stop ends with an error", async () => {
    const cut = TOOL_STREAM.slice(0, TOOL_STREAM.indexOf("event: message_delta"));
    const last = (await events(cut)).at(-1);
    expect(last).toMatchObject({ type: "error", error: { type: "provider_unavailable", status: 502 } });
  });

  test("malformed data → error", async () => {
    const out = await events("event: message_start\ndata: {not json\n\n");
    expect(out.map((e) => e.type)).toEqual(["start", "error"]);
  });
});
