/**
 * Anthropic Messages API wire shapes the adapter reads and writes (Anthropic's public API, `anthropic-version:
 * 2023-06-01`). Response-side types are deliberately loose: upstream JSON is untrusted and newer block kinds appear.
 */

/** `cache_control` on a block, a tool or the whole request. */
export interface WireCacheControl {
  type: "ephemeral";
  ttl?: string;
}

/** A request content block (text, image, document, tool_use, tool_result, thinking, redacted_thinking, …). */
export type WireBlockParam = { type: string; cache_control?: WireCacheControl } & Record<string, unknown>;

/** One request message; Anthropic alternates `user` and `assistant`. */
export interface WireMessageParam {
  role: "user" | "assistant";
  content: WireBlockParam[];
}

/** `thinking` request config. */
export type WireThinking =
  | { type: "enabled"; budget_tokens: number; display?: string }
  | { type: "disabled" }
  | { type: "adaptive"; display?: string };

/** `tool_choice` request config. */
export interface WireToolChoice {
  type: "auto" | "any" | "tool" | "none";
  name?: string;
  disable_parallel_tool_use?: boolean;
}

/** The body POSTed to `${baseUrl}/messages`; extra keys are Anthropic-only passthrough fields. */
export interface WireRequestBody {
  model: string;
  max_tokens: number;
  messages: WireMessageParam[];
  system?: string | WireBlockParam[];
  tools?: Array<Record<string, unknown>>;
  tool_choice?: WireToolChoice;
  thinking?: WireThinking;
  output_config?: { effort?: string; format?: { type: "json_schema"; schema: Record<string, unknown> } };
  stop_sequences?: string[];
  temperature?: number;
  top_p?: number;
  top_k?: number;
  metadata?: { user_id: string };
  cache_control?: WireCacheControl;
  speed?: string;
  stream?: boolean;
  [passthrough: string]: unknown;
}

/** A response content block, any kind. */
export interface WireBlock {
  type: string;
  text?: string;
  citations?: unknown[] | null;
  thinking?: string;
  signature?: string;
  data?: string;
  id?: string;
  name?: string;
  input?: unknown;
  /** A server tool's result block (`web_search_tool_result`): the `server_tool_use` it answers, and what it found. */
  tool_use_id?: string;
  content?: unknown;
}

/** `usage` of a message or of a `message_delta` (where the input counters may be null). */
export interface WireUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation?: { ephemeral_5m_input_tokens?: number; ephemeral_1h_input_tokens?: number } | null;
  output_tokens_details?: { thinking_tokens?: number } | null;
  server_tool_use?: Record<string, unknown> | null;
  service_tier?: string | null;
}

/** A non-streaming reply (also the `message` of `message_start`). */
export interface WireMessage {
  id?: string;
  type?: string;
  role?: string;
  model?: string;
  content?: WireBlock[];
  stop_reason?: string | null;
  stop_sequence?: string | null;
  stop_details?: WireStopDetails | null;
  usage?: WireUsage;
  error?: { type?: string; message?: string };
}

/** `stop_details` of a refusal: the policy category (or null) and a human-readable explanation (or null). */
export interface WireStopDetails {
  type?: string;
  category?: string | null;
  explanation?: string | null;
}

/** One streamed event's data (`type` names the event). */
export interface WireStreamEvent {
  type: string;
  message?: WireMessage;
  index?: number;
  content_block?: WireBlock;
  delta?: {
    type?: string;
    text?: string;
    partial_json?: string;
    thinking?: string;
    signature?: string;
    citation?: unknown;
    stop_reason?: string | null;
    stop_sequence?: string | null;
    stop_details?: WireStopDetails | null;
  };
  usage?: WireUsage;
  error?: { type?: string; message?: string };
}
