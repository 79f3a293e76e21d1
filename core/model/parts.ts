/** Canonical message parts (ARCHITECTURE §2): what every wire format decodes into and encodes from. */

/** Provider cache breakpoint carried on a part (spec: `cache_control` on a content block). */
export interface CacheMark {
  type: "ephemeral";
  ttl?: string;
}

export interface TextPart {
  type: "text";
  text: string;
  cache?: CacheMark;
  /** Output annotations/citations, kept opaque so each format can re-emit what it understands. */
  annotations?: unknown[];
}

export interface ImagePart {
  type: "image";
  /** Either an http(s) URL or a data: URL. */
  url: string;
  mediaType?: string;
  detail?: "auto" | "low" | "high";
  cache?: CacheMark;
}

export interface FilePart {
  type: "file";
  /** data: URL, http(s) URL, or provider file id. */
  data: string;
  mediaType?: string;
  filename?: string;
  cache?: CacheMark;
}

/** Model reasoning; signature / encrypted content must travel back on the next turn for some upstreams. */
export interface ReasoningPart {
  type: "reasoning";
  text: string;
  /** Summary text items (Responses `summary`), when the upstream gives summaries rather than raw reasoning. */
  summary?: string[];
  signature?: string;
  encrypted?: string;
  /** Anthropic `redacted_thinking` data. */
  redacted?: string;
  /** Upstream item id (Responses reasoning item id), kept so a round trip is faithful. */
  id?: string;
  /** Which upstream family produced it (`anthropic-claude-v1`, `openai-responses-v1`, ...). */
  format?: string;
}

export interface ToolCallPart {
  type: "tool-call";
  /** The call id the client sees and echoes back with the result. */
  id: string;
  name: string;
  /** JSON text exactly as the model produced it (never re-serialised, so nothing is lost). */
  arguments: string;
  /** Responses function_call item id, when different from the call id. */
  itemId?: string;
}

export interface ToolResultPart {
  type: "tool-result";
  callId: string;
  /** Plain text, or structured parts (text / image) for upstreams that accept rich tool results. */
  content: string | Array<TextPart | ImagePart>;
  isError?: boolean;
  name?: string;
  cache?: CacheMark;
}

export interface RefusalPart {
  type: "refusal";
  text: string;
}

export type Part = TextPart | ImagePart | FilePart | ReasoningPart | ToolCallPart | ToolResultPart | RefusalPart;

export type Role = "user" | "assistant" | "tool";

export interface Message {
  role: Role;
  parts: Part[];
  /** Chat `name` field. */
  name?: string;
}
