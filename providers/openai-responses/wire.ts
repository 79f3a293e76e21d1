/**
 * The subset of OpenAI's Responses API wire shapes this adapter writes and reads (request body, result, stream
 * events). Read shapes are deliberately loose (every field optional): an upstream that omits a field must not crash
 * the translation, it only yields less data.
 */

/** A content entry of an input message. */
export type WireInputContent =
  | { type: "input_text"; text: string }
  | { type: "input_image"; image_url: string; detail: "auto" | "low" | "high" }
  | { type: "input_file"; file_data?: string; file_url?: string; file_id?: string; filename?: string }
  | { type: "output_text"; text: string; annotations: unknown[] }
  | { type: "refusal"; refusal: string };

/** One entry of the request's `input`. */
export type WireInputItem =
  | { role: "user" | "assistant" | "system" | "developer"; content: WireInputContent[] }
  | { type: "function_call"; call_id: string; name: string; arguments: string; id?: string }
  | {
      type: "function_call_output";
      call_id: string;
      output: string | Array<Extract<WireInputContent, { type: "input_text" | "input_image" }>>;
    }
  | {
      type: "reasoning";
      id: string;
      summary: Array<{ type: "summary_text"; text: string }>;
      content?: Array<{ type: "reasoning_text"; text: string }>;
      encrypted_content?: string;
    };

/** A function tool definition. */
export interface WireFunctionTool {
  type: "function";
  name: string;
  description?: string;
  parameters?: Record<string, unknown>;
  strict?: boolean;
  async?: boolean;
  defer_loading?: boolean;
}

/** OpenAI's own web search (a native `service:web_search`; ./web-search.ts). */
export interface WireWebSearchTool {
  type: "web_search";
  search_context_size?: "low" | "medium" | "high";
  user_location?: { type: "approximate"; city?: string; region?: string; country?: string; timezone?: string };
  filters?: { allowed_domains: string[] };
}

/** `tool_choice`. */
export type WireToolChoice = "auto" | "none" | "required" | { type: "function"; name: string };

/** `text.format`. */
export type WireTextFormat =
  | { type: "text" }
  | { type: "json_object" }
  | { type: "json_schema"; name: string; schema: Record<string, unknown>; strict?: boolean; description?: string };

/** The request body POSTed to `/responses`. */
export interface ResponsesRequestBody {
  model: string;
  input: WireInputItem[];
  instructions?: string;
  stream?: boolean;
  store: false;
  include?: string[];
  tools?: Array<WireFunctionTool | WireWebSearchTool>;
  tool_choice?: WireToolChoice;
  parallel_tool_calls?: boolean;
  max_output_tokens?: number;
  temperature?: number;
  top_p?: number;
  top_logprobs?: number;
  reasoning?: { effort?: string; summary?: string; mode?: unknown; context?: unknown };
  text?: { format?: WireTextFormat; verbosity?: string };
  metadata?: Record<string, string>;
  user?: string;
  safety_identifier?: string;
  service_tier?: string;
  prompt_cache_key?: string;
  prompt_cache_options?: Record<string, unknown>;
  prompt?: unknown;
  truncation?: string;
}

/** `usage` of a result. */
export interface WireUsage {
  input_tokens?: number;
  input_tokens_details?: { cached_tokens?: number; cache_write_tokens?: number } | null;
  output_tokens?: number;
  output_tokens_details?: { reasoning_tokens?: number } | null;
  total_tokens?: number;
  cost?: number;
}

/** A content entry of an output message (`output_text` or `refusal`). */
export interface WireOutputContent {
  type: string;
  text?: string;
  refusal?: string;
  annotations?: unknown[];
  logprobs?: unknown[] | null;
}

/** Any output item; which fields are set depends on `type`. */
export interface WireOutputItem {
  type: string;
  id?: string;
  status?: string;
  // message
  role?: string;
  content?: WireOutputContent[] | null;
  // reasoning
  summary?: Array<{ type?: string; text?: string }>;
  encrypted_content?: string | null;
  signature?: string | null;
  format?: string | null;
  // function_call
  call_id?: string;
  name?: string;
  arguments?: string;
  // web_search_call: `{type: search, query, sources?}`, `{type: open_page, url}` or `{type: find, url, pattern}`
  action?: { type?: string; query?: string; url?: string; pattern?: string; sources?: unknown[] } | null;
  // image_generation_call: the image's base64 and its format (`png`, `jpeg`, `webp`)
  result?: string | null;
  output_format?: string | null;
}

/** A failed result's `error`. */
export interface WireError {
  code?: string | number | null;
  message?: string;
  type?: string;
  param?: string | null;
  metadata?: Record<string, unknown>;
}

/** A Responses result (also the `response` of lifecycle stream events). */
export interface WireResponse {
  id?: string;
  object?: string;
  created_at?: number;
  completed_at?: number | null;
  status?: string;
  model?: string;
  output?: WireOutputItem[];
  error?: WireError | null;
  error_type?: string;
  incomplete_details?: { reason?: string } | null;
  usage?: WireUsage | null;
  service_tier?: string | null;
}

/** One SSE event's JSON; which fields are set depends on `type`. */
export interface WireStreamEvent {
  type: string;
  sequence_number?: number;
  response?: WireResponse;
  item?: WireOutputItem;
  item_id?: string;
  output_index?: number;
  content_index?: number;
  summary_index?: number;
  delta?: string;
  text?: string;
  arguments?: string;
  part?: WireOutputContent;
  annotation?: unknown;
  logprobs?: unknown[];
  // `error` event
  code?: string | null;
  message?: string;
  param?: string | null;
  error?: WireError;
}
