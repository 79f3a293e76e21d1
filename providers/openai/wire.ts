/**
 * The OpenAI chat-completions wire shapes this adapter reads and writes (request body, completion, stream chunk),
 * including the fields OpenAI-compatible servers add: `reasoning` / `reasoning_content` / `reasoning_details`
 * (OpenRouter, vLLM, DeepSeek), `native_finish_reason`, DeepSeek's `prompt_cache_hit_tokens`.
 * Response-side fields are all optional because compatible servers omit freely; readers must not trust them.
 */

/** One entry of OpenRouter-style `reasoning_details` (text with signature, summary, or encrypted blob). */
export interface WireReasoningDetail {
  type: "reasoning.text" | "reasoning.summary" | "reasoning.encrypted" | (string & {});
  text?: string | null;
  summary?: string | null;
  data?: string | null;
  signature?: string | null;
  id?: string | null;
  format?: string | null;
  index?: number;
}

/** A content part of a request message. */
export type WireContentPart =
  | { type: "text"; text: string }
  | { type: "image_url"; image_url: { url: string; detail?: "auto" | "low" | "high" } }
  | { type: "file"; file: { file_data?: string; file_id?: string; filename?: string } };

/** A tool call as it appears on an assistant message. */
export interface WireToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** A request message. */
export type WireMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string | WireContentPart[]; name?: string }
  | {
      role: "assistant";
      content: string | Array<{ type: "text"; text: string }> | null;
      name?: string;
      refusal?: string;
      tool_calls?: WireToolCall[];
      reasoning?: string;
      reasoning_details?: WireReasoningDetail[];
    }
  | { role: "tool"; tool_call_id: string; content: string | Array<{ type: "text"; text: string }> };

/** A request tool definition. */
export interface WireTool {
  type: "function";
  function: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean };
}

/** The request body. Optional fields are omitted rather than sent as null, for strict compatible servers. */
export interface ChatRequestBody {
  model: string;
  messages: WireMessage[];
  stream?: boolean;
  stream_options?: { include_usage: boolean };
  tools?: WireTool[];
  tool_choice?: "auto" | "none" | "required" | { type: "function"; function: { name: string } };
  parallel_tool_calls?: boolean;
  temperature?: number;
  top_p?: number;
  top_k?: number;
  min_p?: number;
  frequency_penalty?: number;
  presence_penalty?: number;
  repetition_penalty?: number;
  seed?: number;
  stop?: string[];
  logprobs?: boolean;
  top_logprobs?: number;
  logit_bias?: Record<string, number>;
  max_completion_tokens?: number;
  max_tokens?: number;
  response_format?:
    | { type: "json_object" }
    | { type: "json_schema"; json_schema: { name: string; schema: Record<string, unknown>; strict?: boolean; description?: string } };
  verbosity?: string;
  reasoning_effort?: string;
  user?: string;
  safety_identifier?: string;
  prompt_cache_key?: string;
  metadata?: Record<string, string>;
  service_tier?: string;
  modalities?: string[];
  [extra: string]: unknown;
}

/** Usage as OpenAI and compatible servers report it. */
export interface WireUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number; cache_write_tokens?: number } | null;
  completion_tokens_details?: { reasoning_tokens?: number } | null;
  /** DeepSeek's names for cached prompt tokens. */
  prompt_cache_hit_tokens?: number;
}

/** A tool call in a response message, or a fragment of one in a stream delta. */
export interface WireToolCallOut {
  index?: number;
  id?: string | null;
  type?: string;
  function?: { name?: string | null; arguments?: string | null };
}

/** The fields shared by a response `message` and a stream `delta`. */
export interface WireMessageOut {
  role?: string;
  content?: string | null;
  refusal?: string | null;
  reasoning?: string | null;
  reasoning_content?: string | null;
  reasoning_details?: WireReasoningDetail[] | null;
  tool_calls?: WireToolCallOut[] | null;
  annotations?: unknown[] | null;
  /** Generated images (OpenRouter-style image output): whole in a message, one or more per delta in a stream. */
  images?: WireImageOut[] | null;
  /** Spoken output (`modalities` with `audio`): whole in a message, in pieces in a stream (./audio.ts). */
  audio?: WireAudioOut | null;
}

/** `message.audio` / `delta.audio`. */
export interface WireAudioOut {
  id?: string | null;
  data?: string | null;
  transcript?: string | null;
  expires_at?: number | null;
  format?: string | null;
}

/** One generated image of a message or delta: `image_url.url` is a `data:` URL or an http(s) URL. */
export interface WireImageOut {
  type?: string;
  image_url?: { url?: string | null } | null;
  index?: number;
}

/** `POST /images/generations` body (OpenAI Images API). */
export interface ImagesRequestBody {
  model: string;
  prompt: string;
  n: 1;
  size?: string;
  quality?: string;
  background?: string;
  output_format?: string;
  output_compression?: number;
  moderation?: string;
}

/** Its reply: `b64_json` (GPT image models) or `url` (DALL·E's default), with the rewritten prompt when there is one. */
export interface ImagesResponseBody {
  created?: number;
  data?: Array<{ b64_json?: string | null; url?: string | null; revised_prompt?: string | null }> | null;
  output_format?: string | null;
}

/** A choice of a completion (`message`) or of a chunk (`delta`). */
export interface WireChoice {
  index?: number;
  message?: WireMessageOut;
  delta?: WireMessageOut;
  finish_reason?: string | null;
  native_finish_reason?: string | null;
  logprobs?: { content?: unknown[] | null } | null;
}

/** The in-band error object of OpenRouter-style streams. */
export interface WireError {
  code?: string | number;
  message?: string;
  type?: string;
  metadata?: Record<string, unknown>;
}

/** A non-streaming completion, and equally one stream chunk (`object: chat.completion.chunk`). */
export interface ChatCompletion {
  id?: string;
  object?: string;
  created?: number;
  model?: string;
  choices?: WireChoice[] | null;
  usage?: WireUsage | null;
  system_fingerprint?: string | null;
  service_tier?: string | null;
  error?: WireError;
}
