/** The canonical request (spec "Responses request", "Messages request", "Chat-completions request"). */
import type { RetrievalTask } from "../retrieval/types.ts";
import type { CacheMark, Message, TextPart } from "./parts.ts";
import type { Warning } from "./warnings.ts";

export type InboundFormat = "chat" | "responses" | "messages";

/** A client-run function tool, or a server tool (`service:*`) the gateway runs itself. */
export type Tool =
  | {
      kind: "function";
      name: string;
      description?: string;
      parameters?: Record<string, unknown>;
      strict?: boolean;
      async?: boolean;
      deferLoading?: boolean;
      cache?: CacheMark;
      /**
       * The upstream's own tool this function stands for (Anthropic's `web_search_20250305` a client declared, which
       * the gateway otherwise runs under this function's name): an adapter whose upstream has that tool sends it
       * instead, and reports the upstream's runs as server-tool parts.
       */
      upstreamTool?: { type: string; parameters?: Record<string, unknown> };
    }
  | {
      kind: "server";
      type: string;
      parameters?: Record<string, unknown>;
      /**
       * The type as the client wrote it, when that is not ours: the peer's `openrouter:datetime`, OpenAI's hosted
       * `web_search`. Its calls are shown to the client in that spelling (core/formats/shared/tool-spelling.ts).
       */
      spelling?: string;
      /** `defer_loading` on a server-tool entry (only a search tool's own deferral means anything: a 400). */
      deferLoading?: boolean;
    };

export type ToolChoice =
  | { type: "auto" }
  | { type: "none" }
  | { type: "required" }
  | { type: "tool"; name: string; disableParallel?: boolean };

export type OutputFormat =
  | { type: "text" }
  | { type: "json_object" }
  | { type: "json_schema"; name: string; schema: Record<string, unknown>; strict?: boolean; description?: string };

export interface ReasoningSettings {
  effort?: "max" | "xhigh" | "high" | "medium" | "low" | "minimal" | "none";
  summary?: "auto" | "concise" | "detailed";
  enabled?: boolean;
  maxTokens?: number;
  /** Messages `thinking.display` and friends, passed through where the upstream understands them. */
  extra?: Record<string, unknown>;
}

export interface SamplingSettings {
  temperature?: number;
  topP?: number;
  topK?: number;
  minP?: number;
  frequencyPenalty?: number;
  presencePenalty?: number;
  repetitionPenalty?: number;
  seed?: number;
  stop?: string[];
  logprobs?: boolean;
  topLogprobs?: number;
  logitBias?: Record<string, number>;
}

/** Provider routing preferences (spec `provider`). Kept as sent; the routing stage interprets it. */
export type ProviderPreferences = Record<string, unknown>;

export type ServiceTier = "auto" | "default" | "flex" | "priority" | "scale" | "ultrafast";

export interface PluginRequest {
  id: string;
  enabled?: boolean;
  [option: string]: unknown;
}

/** Stop conditions of the server-tool agent loop. */
export type StopCondition =
  | { type: "step_count_is"; step_count: number }
  | { type: "max_cost"; max_cost_in_dollars: number }
  | { type: "max_tokens_used"; max_tokens: number }
  | { type: "has_tool_call"; tool_name: string }
  | { type: "finish_reason_is"; reason: string };

export interface CanonicalRequest {
  /** Which wire format the client spoke (for encoders and echoes). */
  format: InboundFormat;
  /** Requested model id (may be null when only `models` was sent). */
  model: string | undefined;
  /** Fallback models tried in order after `model` (Responses/chat `models`, Messages `fallbacks`). */
  models: string[];
  system: TextPart[];
  messages: Message[];
  tools: Tool[];
  toolChoice?: ToolChoice;
  parallelToolCalls?: boolean;
  sampling: SamplingSettings;
  /** One max-output-tokens value, from whichever field the format used. */
  maxTokens?: number;
  output?: { format?: OutputFormat; verbosity?: string };
  reasoning?: ReasoningSettings;
  stream: boolean;
  /** Chat `stream_options.include_usage`. */
  includeUsage?: boolean;
  provider?: ProviderPreferences;
  serviceTier?: ServiceTier;
  speed?: "fast" | "standard";
  sessionId?: string;
  plugins: PluginRequest[];
  maxToolCalls?: number;
  stopWhen?: StopCondition[];
  cache?: { control?: CacheMark; promptCacheKey?: string; options?: Record<string, unknown> };
  metadata?: Record<string, string>;
  user?: string;
  /** Hashed already: the raw safety identifier never leaves the decoder. */
  safetyIdentifier?: string;
  trace?: Record<string, unknown>;
  debug?: { echoUpstreamBody?: boolean };
  modalities?: string[];
  /** Provider-specific or format-specific extras that an adapter of the same family may pass through untouched. */
  passthrough?: Record<string, unknown>;
  /**
   * Set for `POST /embeddings` and `POST /rerank` (core/retrieval/): the turn calls the adapter's `embed` or `rerank`
   * with the texts of `messages`, not `generate`. Absent: a chat generation.
   */
  task?: RetrievalTask;
  /** Problems found while decoding that did not warrant a 400 (unknown fields, approximations). */
  warnings: Warning[];
  /** The body as received, for the echoes a result needs (Responses echoes many request fields). */
  original: Record<string, unknown>;
}
