/**
 * Amazon Bedrock Converse API wire shapes the adapter writes and reads (`POST /model/{modelId}/converse` and
 * `/converse-stream`; the AWS SDK's `ConverseRequest`, `ConverseResponse` and `ConverseStreamOutput`, with binary
 * members as base64 strings, as they travel in JSON). Response-side types are loose: upstream JSON is untrusted and
 * newer members appear.
 */

/** `cachePoint`: everything before it in its list (system, tools, messages) is a cache prefix. */
export interface WireCachePoint {
  type: "default";
  ttl?: "5m" | "1h";
}

/** `s3://bucket/key` media (Bedrock reads the object itself). */
export interface WireS3Location {
  uri: string;
  bucketOwner?: string;
}

/** Image and document bytes as base64, or an S3 location. */
export type WireSource = { bytes: string } | { s3Location: WireS3Location };

export interface WireImage {
  format: "png" | "jpeg" | "gif" | "webp";
  source: WireSource;
}

export interface WireDocument {
  format: "pdf" | "csv" | "doc" | "docx" | "xls" | "xlsx" | "html" | "txt" | "md";
  /** Letters, digits, single spaces, hyphens, parentheses and square brackets only. */
  name: string;
  source: WireSource;
}

/** `reasoningContent`: signed reasoning text, or reasoning the model's provider encrypted. */
export type WireReasoning = { reasoningText: { text: string; signature?: string } } | { redactedContent: string };

export type WireToolResultContent = { text: string } | { json: unknown } | { image: WireImage } | { document: WireDocument };

/** One content block of a message (exactly one member set). */
export type WireContentBlock =
  | { text: string }
  | { image: WireImage }
  | { document: WireDocument }
  | { toolUse: { toolUseId: string; name: string; input: unknown } }
  | { toolResult: { toolUseId: string; content: WireToolResultContent[]; status?: "success" | "error" } }
  | { reasoningContent: WireReasoning }
  | { cachePoint: WireCachePoint };

export interface WireMessage {
  role: "user" | "assistant";
  content: WireContentBlock[];
}

export type WireSystemBlock = { text: string } | { cachePoint: WireCachePoint };

export interface WireToolSpec {
  name: string;
  description?: string;
  inputSchema: { json: Record<string, unknown> };
  strict?: boolean;
}

export type WireTool = { toolSpec: WireToolSpec } | { cachePoint: WireCachePoint };

export type WireToolChoice = { auto: Record<string, never> } | { any: Record<string, never> } | { tool: { name: string } };

export interface WireInferenceConfig {
  maxTokens?: number;
  temperature?: number;
  topP?: number;
  stopSequences?: string[];
}

/** `outputConfig.textFormat`: the answer constrained to a JSON schema (sent as a JSON string). */
export interface WireOutputConfig {
  textFormat?: { type: "json_schema"; structure: { jsonSchema: { schema: string; name?: string; description?: string } } };
  effort?: string;
}

/** The body POSTed (the model id travels in the path). */
export interface WireRequestBody {
  messages: WireMessage[];
  system?: WireSystemBlock[];
  inferenceConfig?: WireInferenceConfig;
  toolConfig?: { tools: WireTool[]; toolChoice?: WireToolChoice };
  /** Model-specific fields passed to the model as they are (Claude's `thinking`, `top_k`). */
  additionalModelRequestFields?: Record<string, unknown>;
  outputConfig?: WireOutputConfig;
  requestMetadata?: Record<string, string>;
  serviceTier?: { type: string };
}

/** A response content block, any member. */
export interface WireResponseBlock {
  text?: string;
  toolUse?: { toolUseId?: string; name?: string; input?: unknown };
  reasoningContent?: { reasoningText?: { text?: string; signature?: string }; redactedContent?: string };
  citationsContent?: { content?: Array<{ text?: string }>; citations?: unknown[] };
  [member: string]: unknown;
}

/** `usage`: `inputTokens` excludes the cache reads and writes counted beside it. */
export interface WireUsage {
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
  cacheReadInputTokens?: number;
  cacheWriteInputTokens?: number;
}

/** A Converse reply. */
export interface WireConverseResponse {
  output?: { message?: { role?: string; content?: WireResponseBlock[] } };
  stopReason?: string;
  usage?: WireUsage;
  metrics?: { latencyMs?: number };
  serviceTier?: { type?: string };
  additionalModelResponseFields?: unknown;
}

/** `contentBlockDelta.delta` (one member set). */
export interface WireDelta {
  text?: string;
  toolUse?: { input?: string };
  reasoningContent?: { text?: string; signature?: string; redactedContent?: string };
  citation?: unknown;
}

/** The payloads of the ConverseStream events (`:event-type` names which). */
export interface WireStreamPayload {
  role?: string;
  contentBlockIndex?: number;
  start?: { toolUse?: { toolUseId?: string; name?: string } };
  delta?: WireDelta;
  stopReason?: string;
  usage?: WireUsage;
  serviceTier?: { type?: string };
  message?: string;
}
