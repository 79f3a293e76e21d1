/** Anthropic wire fixtures shaped like real API traffic (non-streaming bodies and SSE transcripts). */

/** Named SSE frames as Anthropic sends them. */
export function sse(events: Array<Record<string, unknown> & { type: string }>): string {
  return events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join("");
}

/** Thinking (signed) → text → tool_use, with cache reads, pings and an empty first input_json_delta. */
export const TOOL_STREAM = sse([
  {
    type: "message_start",
    message: {
      id: "msg_01XFDUDYJgAACzvnptvVoYEL",
      type: "message",
      role: "assistant",
      content: [],
      model: "claude-sonnet-4-5-20250929",
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 472, cache_creation_input_tokens: 0, cache_read_input_tokens: 1800, output_tokens: 2, service_tier: "standard" },
    },
  },
  { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "", signature: "" } },
  { type: "ping" },
  { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "The user wants the weather" } },
  { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: " in San Francisco." } },
  { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds" } },
  { type: "content_block_stop", index: 0 },
  { type: "content_block_start", index: 1, content_block: { type: "text", text: "" } },
  { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "Let me check" } },
  { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: " the weather." } },
  { type: "content_block_stop", index: 1 },
  { type: "content_block_start", index: 2, content_block: { type: "tool_use", id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", name: "get_weather", input: {} } },
  { type: "content_block_delta", index: 2, delta: { type: "input_json_delta", partial_json: "" } },
  { type: "content_block_delta", index: 2, delta: { type: "input_json_delta", partial_json: '{"location":' } },
  { type: "content_block_delta", index: 2, delta: { type: "input_json_delta", partial_json: ' "San Francisco, CA"}' } },
  { type: "content_block_stop", index: 2 },
  { type: "message_delta", delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 89, output_tokens_details: { thinking_tokens: 31 } } },
  { type: "message_stop" },
]);

/** The same turn as one non-streaming body. */
export const TOOL_MESSAGE = {
  id: "msg_01XFDUDYJgAACzvnptvVoYEL",
  type: "message",
  role: "assistant",
  model: "claude-sonnet-4-5-20250929",
  content: [
    { type: "thinking", thinking: "The user wants the weather in San Francisco.", signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds" },
    { type: "text", text: "Let me check the weather." },
    { type: "tool_use", id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", name: "get_weather", input: { location: "San Francisco, CA" } },
  ],
  stop_reason: "tool_use",
  stop_sequence: null,
  usage: {
    input_tokens: 472,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 1800,
    output_tokens: 89,
    output_tokens_details: { thinking_tokens: 31 },
    service_tier: "standard",
  },
};

/** A text answer that wrote a cache entry, with a citation and a redacted thinking block. */
export const CACHE_WRITE_MESSAGE = {
  id: "msg_013Zva2CMHLNnXjNJJKqJ2EF",
  type: "message",
  role: "assistant",
  model: "claude-opus-4-1-20250805",
  content: [
    { type: "redacted_thinking", data: "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB5URj" },
    {
      type: "text",
      text: "The grass is green.",
      citations: [{ type: "char_location", cited_text: "The grass is green.", document_index: 0, document_title: "Facts", start_char_index: 0, end_char_index: 20 }],
    },
  ],
  stop_reason: "end_turn",
  stop_sequence: null,
  usage: {
    input_tokens: 21,
    cache_creation_input_tokens: 2048,
    cache_read_input_tokens: 0,
    cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 2048 },
    output_tokens: 9,
  },
};

/** Anthropic's error body shape. */
export function errorBody(type: string, message: string): Record<string, unknown> {
  return { type: "error", error: { type, message } };
}
