/** Canonical message parts: what every wire format decodes into and encodes from. */

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
  /**
   * Tools a client-side tool search found, by name (Messages `tool_reference` blocks): each deferred tool named here
   * is loaded from then on (core/tools/declared.ts, core/provider-kit/deferred-tools.ts).
   */
  toolReferences?: string[];
  isError?: boolean;
  name?: string;
  cache?: CacheMark;
}

export interface RefusalPart {
  type: "refusal";
  text: string;
}

/**
 * A server tool the gateway ran for the model (spec "What the service does" 4): the call and its result in one part,
 * so each format shows it its own way (a Responses `service:*` output item; Messages `server_tool_use` plus a result
 * block; chat `message.server_tool_calls`). In a request's history (a client replaying a previous reply) it stands
 * for the call and result the model saw; the agent loop turns it back into a tool call and its result upstream.
 */
export interface ServerToolPart {
  type: "server-tool";
  /** Item / block id the client sees (`st_…` on Responses, `srvtoolu_…` on Messages), unique in the reply. */
  id: string;
  /** The call id the model used (upstream function-call id). */
  callId: string;
  /** The tool type, e.g. `service:datetime`. */
  name: string;
  /** JSON text of the arguments, exactly as the model produced them. */
  arguments: string;
  status: "completed" | "failed" | "incomplete";
  /** What the tool returned (a JSON value; this is what the model saw). Absent while running or when it failed. */
  result?: unknown;
  /** Why it failed (the model saw `{error}`), e.g. "HTTP 404" or "timed out after 30000 ms". */
  error?: string;
}

/**
 * Audio the model spoke (chat `message.audio`, Gemini `inlineData` audio): base64 bytes, the spoken text when the
 * upstream gave it, and OpenAI's id / expiry, which a client sends back (`audio: {id}`) to refer to it on a later turn.
 */
export interface AudioPart {
  type: "audio";
  /** Base64 of the audio bytes. */
  data: string;
  /** `wav`, `mp3`, `pcm16`, … when known (chat's own `format`, or read from Gemini's MIME type). */
  format?: string;
  transcript?: string;
  /** Upstream audio id (`audio_…`). */
  id?: string;
  /** Unix seconds after which the upstream forgets `id`. */
  expiresAt?: number;
}

export type Part = TextPart | ImagePart | FilePart | ReasoningPart | ToolCallPart | ToolResultPart | RefusalPart | ServerToolPart | AudioPart;

export type Role = "user" | "assistant" | "tool";

export interface Message {
  role: Role;
  parts: Part[];
  /** Chat `name` field. */
  name?: string;
}
