import { describe, expect, test } from "bun:test";
import { messagesFormat } from "../../../../core/formats/messages/index.ts";
import type { CanonicalResponse, Finish, FinishReason } from "../../../../core/model/response.ts";
import { encodeContext, usage } from "./helpers.ts";

function response(extra: Partial<CanonicalResponse> = {}): CanonicalResponse {
  return {
    id: "msg_upstream",
    model: "claude-sonnet-4-5-20250929",
    provider: "anthropic",
    created: 1_700_000_000,
    parts: [{ type: "text", text: "Hello there." }],
    finish: { reason: "stop", raw: "end_turn" },
    usage: usage(2100, 12, 1500, 100),
    warnings: [],
    ...extra,
  };
}

describe("messages encode", () => {
  test("text result: shape, id from the context, usage excluding cache tokens", () => {
    const body = messagesFormat.encode(response(), encodeContext());
    expect(body).toEqual({
      id: "gen-123",
      type: "message",
      role: "assistant",
      model: "claude-sonnet-4-5-20250929",
      content: [{ type: "text", text: "Hello there.", citations: null }],
      stop_reason: "end_turn",
      stop_sequence: null,
      stop_details: null,
      container: null,
      usage: {
        input_tokens: 500,
        cache_creation_input_tokens: 100,
        cache_read_input_tokens: 1500,
        cache_creation: { ephemeral_5m_input_tokens: 100, ephemeral_1h_input_tokens: 0 },
        output_tokens: 12,
        output_tokens_details: null,
        server_tool_use: null,
        service_tier: "standard",
        inference_geo: null,
      },
      provider: "anthropic",
    });
  });

  test("the upstream's per-TTL cache split, reasoning tokens, server tools and cost are reported", () => {
    const u = { ...usage(1000, 50, 0, 300, 20), serverTools: { web_search_requests: 2 }, raw: { cache_creation: { ephemeral_5m_input_tokens: 100, ephemeral_1h_input_tokens: 200 } } };
    const body = messagesFormat.encode(response({ usage: u, cost: { total: 0.0123, input: 0.01, output: 0.0023, upstream: null } }), encodeContext());
    expect(body.usage).toMatchObject({
      input_tokens: 700,
      cache_creation: { ephemeral_5m_input_tokens: 100, ephemeral_1h_input_tokens: 200 },
      output_tokens_details: { thinking_tokens: 20 },
      server_tool_use: { web_search_requests: 2 },
      cost: 0.0123,
      cost_details: { upstream_inference_cost: null, upstream_inference_prompt_cost: 0.01, upstream_inference_completions_cost: 0.0023 },
    });
  });

  test("thinking, redacted thinking, tool_use with parsed input", () => {
    const body = messagesFormat.encode(
      response({
        parts: [
          { type: "reasoning", text: "Think.", signature: "EqQBCkYIBxgCKkA=", format: "anthropic-claude-v1" },
          { type: "reasoning", text: "", redacted: "EmwKAhgBEgy3vbsp", format: "anthropic-claude-v1" },
          { type: "tool-call", id: "toolu_01A", name: "get_weather", arguments: '{"city":"Paris"}' },
        ],
        finish: { reason: "tool_calls", raw: "tool_use" },
      }),
      encodeContext(),
    );
    expect(body.content).toEqual([
      { type: "thinking", thinking: "Think.", signature: "EqQBCkYIBxgCKkA=" },
      { type: "redacted_thinking", data: "EmwKAhgBEgy3vbsp" },
      { type: "tool_use", id: "toolu_01A", name: "get_weather", input: { city: "Paris" } },
    ]);
    expect(body.stop_reason).toBe("tool_use");
  });

  test("invalid tool arguments → input {} and a warning", () => {
    const r = response({ parts: [{ type: "tool-call", id: "call_1", name: "f", arguments: '{"a": 1' }], finish: { reason: "tool_calls" } });
    const ctx = encodeContext();
    const body = messagesFormat.encode(r, ctx);
    expect(body.content).toEqual([{ type: "tool_use", id: "call_1", name: "f", input: {} }]);
    expect(ctx.request.warnings.map((w) => w.code)).toEqual(["approximated"]);
  });

  test("reasoning from another family round-trips through a packed signature", () => {
    const part = { type: "reasoning" as const, text: "", summary: ["Plan."], encrypted: "gAAAAB…", id: "rs_1", format: "openai-responses-v1" };
    const body = messagesFormat.encode(response({ parts: [part] }), encodeContext());
    const block = (body.content as Array<Record<string, unknown>>)[0] as { type: string; thinking: string; signature: string };
    expect(block.type).toBe("thinking");
    expect(block.thinking).toBe("Plan.");
    expect(block.signature.startsWith("gwr1.")).toBe(true);
    const next = messagesFormat.decode(
      { model: "m", messages: [{ role: "user", content: "q" }, { role: "assistant", content: [block] }, { role: "user", content: "more" }] },
      new Headers(),
    );
    expect(next.messages[1]?.parts).toEqual([{ type: "reasoning", text: "Plan.", encrypted: "gAAAAB…", id: "rs_1", format: "openai-responses-v1" }]);
  });

  test("OpenAI url citations become web_search_result_location; Anthropic citations pass", () => {
    const anthropicCitation = { type: "char_location", cited_text: "x", document_index: 0, document_title: null, start_char_index: 0, end_char_index: 1 };
    const r = response({
      parts: [{ type: "text", text: "See docs.", annotations: [anthropicCitation, { type: "url_citation", url: "https://d.example", title: "D", start_index: 4, end_index: 8 }, { type: "mystery" }] }],
    });
    const ctx = encodeContext();
    const body = messagesFormat.encode(r, ctx);
    expect((body.content as Array<Record<string, unknown>>)[0]?.citations).toEqual([
      anthropicCitation,
      { type: "web_search_result_location", url: "https://d.example", title: "D", cited_text: "docs", encrypted_index: "" },
    ]);
    expect(ctx.request.warnings.map((w) => w.code)).toEqual(["unsupported_field"]);
  });

  test("refusal → text block, stop_reason refusal, stop_details", () => {
    const body = messagesFormat.encode(response({ parts: [{ type: "refusal", text: "I can't help with that." }], finish: { reason: "refusal" } }), encodeContext());
    expect(body.stop_reason).toBe("refusal");
    expect(body.stop_details).toEqual({ type: "refusal", category: null, explanation: "I can't help with that." });
    expect(body.content).toEqual([{ type: "text", text: "I can't help with that.", citations: null }]);
  });

  test("warnings raised while encoding are visible in service_metadata (read after encoding)", () => {
    const ctx = encodeContext();
    const withMetadata = { ...ctx, trailer: { serviceMetadata: {} } };
    const body = messagesFormat.encode(response({ parts: [{ type: "audio", data: "AAAA", transcript: "hi" }] }), withMetadata);
    expect(body.service_metadata).toEqual({ warnings: [expect.objectContaining({ code: "unsupported_field", field: "content[0]" })] });
  });

  test("a generated image → an image block: base64 for a data: URL, a url source for a link", () => {
    const parts = [{ type: "image" as const, url: "data:image/webp;base64,UklG" }, { type: "image" as const, url: "https://x/y.png" }];
    const ctx = encodeContext();
    expect(messagesFormat.encode(response({ parts }), ctx).content).toEqual([
      { type: "image", source: { type: "base64", media_type: "image/webp", data: "UklG" } },
      { type: "image", source: { type: "url", url: "https://x/y.png" } },
    ]);
    expect(ctx.request.warnings).toEqual([]);
  });

  test("service_metadata only when the context offers it", () => {
    expect("service_metadata" in messagesFormat.encode(response(), encodeContext())).toBe(false);
    const body = messagesFormat.encode(response(), encodeContext({ trailer: { serviceMetadata: { strategy: "direct" } } }));
    expect(body.service_metadata).toEqual({ strategy: "direct" });
  });

  const cases: Array<[Finish, string | null, string | null]> = [
    [{ reason: "stop" }, "end_turn", null],
    [{ reason: "stop", stopSequence: "END" }, "stop_sequence", "END"],
    [{ reason: "stop", raw: "stop_sequence", stopSequence: "###" }, "stop_sequence", "###"],
    [{ reason: "length", raw: "length" }, "max_tokens", null],
    [{ reason: "tool_calls", raw: "function_call" }, "tool_use", null],
    [{ reason: "content_filter", raw: "SAFETY" }, "refusal", null],
    [{ reason: "refusal" }, "refusal", null],
    [{ reason: "pause", raw: "pause_turn" }, "pause_turn", null],
    [{ reason: "context_window" }, "model_context_window_exceeded", null],
    [{ reason: "length", raw: "model_context_window_exceeded" }, "model_context_window_exceeded", null],
    [{ reason: "other", raw: "compaction" }, "compaction", null],
    [{ reason: "other" as FinishReason, raw: "weird" }, "end_turn", null],
  ];
  for (const [finish, stopReason, stopSequence] of cases) {
    test(`finish ${JSON.stringify(finish)} → stop_reason ${stopReason}`, () => {
      const body = messagesFormat.encode(response({ finish }), encodeContext());
      expect(body.stop_reason).toBe(stopReason);
      expect(body.stop_sequence).toBe(stopSequence);
    });
  }
});
