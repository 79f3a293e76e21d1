/**
 * TypeBox schemas of Messages content blocks (spec "Messages request" `messages`; the block shapes are Anthropic's,
 * which the spec leaves unnamed). Blocks stay open (extra keys allowed) because Anthropic clients echo back fields of
 * earlier results and newer SDKs add keys; decode warns about the ones it drops.
 */
import { Type, type Static } from "@sinclair/typebox";
import { CacheControlSchema, Nullable, Open } from "../shared/schema.ts";

const cacheControl = Type.Optional(Nullable(CacheControlSchema));

/** `{type: text, text, cache_control?, citations?}`; citations are kept opaque. */
export const TextBlockSchema = Type.Object(
  {
    type: Type.Literal("text"),
    text: Type.String(),
    cache_control: cacheControl,
    citations: Type.Optional(Nullable(Type.Array(Type.Record(Type.String(), Type.Unknown())))),
  },
  Open,
);

/** Image source: inline base64, a URL, or an Anthropic Files API id. */
export const ImageSourceSchema = Type.Union([
  Type.Object({ type: Type.Literal("base64"), media_type: Type.String(), data: Type.String() }),
  Type.Object({ type: Type.Literal("url"), url: Type.String() }),
  Type.Object({ type: Type.Literal("file"), file_id: Type.String() }),
]);

/** `{type: image, source}`. */
export const ImageBlockSchema = Type.Object(
  { type: Type.Literal("image"), source: ImageSourceSchema, cache_control: cacheControl },
  Open,
);

/** Document source: base64 PDF, plain text, URL, inline content blocks, or a Files API id. */
export const DocumentSourceSchema = Type.Union([
  Type.Object({ type: Type.Literal("base64"), media_type: Type.String(), data: Type.String() }),
  Type.Object({ type: Type.Literal("text"), media_type: Type.Optional(Type.String()), data: Type.String() }),
  Type.Object({ type: Type.Literal("url"), url: Type.String() }),
  Type.Object({
    type: Type.Literal("content"),
    content: Type.Union([Type.String(), Type.Array(Type.Union([TextBlockSchema, ImageBlockSchema]))]),
  }),
  Type.Object({ type: Type.Literal("file"), file_id: Type.String() }),
]);

/** `{type: document, source, title?, context?, citations?}`. */
export const DocumentBlockSchema = Type.Object(
  {
    type: Type.Literal("document"),
    source: DocumentSourceSchema,
    title: Type.Optional(Nullable(Type.String())),
    context: Type.Optional(Nullable(Type.String())),
    citations: Type.Optional(Nullable(Type.Object({ enabled: Type.Optional(Type.Boolean()) }))),
    cache_control: cacheControl,
  },
  Open,
);

/** A tool call the assistant made earlier: `input` is the parsed arguments object. */
export const ToolUseBlockSchema = Type.Object(
  {
    type: Type.Literal("tool_use"),
    id: Type.String(),
    name: Type.String(),
    input: Type.Unknown(),
    cache_control: cacheControl,
  },
  Open,
);

/**
 * A tool a client-side tool search found (Anthropic's `tool_reference`): inside a `tool_result`, it loads that
 * deferred tool (`defer_loading: true`) for the rest of the conversation.
 */
export const ToolReferenceBlockSchema = Type.Object({ type: Type.Literal("tool_reference"), tool_name: Type.String({ minLength: 1 }) }, Open);

/** The client's result for one tool call; `content` is a string or text / image / document / tool_reference blocks. */
export const ToolResultBlockSchema = Type.Object(
  {
    type: Type.Literal("tool_result"),
    tool_use_id: Type.String(),
    content: Type.Optional(
      Type.Union([Type.String(), Type.Array(Type.Union([TextBlockSchema, ImageBlockSchema, DocumentBlockSchema, ToolReferenceBlockSchema]))]),
    ),
    is_error: Type.Optional(Type.Boolean()),
    cache_control: cacheControl,
  },
  Open,
);

/** Extended thinking echoed back with its signature (which must travel unmodified). */
export const ThinkingBlockSchema = Type.Object(
  { type: Type.Literal("thinking"), thinking: Type.String(), signature: Type.String() },
  Open,
);

/** Safety-redacted thinking: opaque `data` that must travel back unchanged. */
export const RedactedThinkingBlockSchema = Type.Object(
  { type: Type.Literal("redacted_thinking"), data: Type.String() },
  Open,
);

/** A server tool the gateway (or Anthropic) ran in an earlier reply: `name` is the tool, `input` its arguments. */
export const ServerToolUseBlockSchema = Type.Object(
  { type: Type.Literal("server_tool_use"), id: Type.String({ minLength: 1 }), name: Type.String({ minLength: 1 }), input: Type.Unknown() },
  Open,
);

/**
 * The result of a server tool call, echoed back: `web_search_tool_result`, `web_fetch_tool_result`,
 * `service_<tool>_tool_result` and Anthropic's other `*_tool_result` kinds. `content` is the kind's own shape.
 */
export const ServerToolResultBlockSchema = Type.Object(
  {
    type: Type.TemplateLiteral([Type.String({ minLength: 1 }), Type.Literal("_tool_result")]),
    tool_use_id: Type.String({ minLength: 1 }),
    content: Type.Optional(Type.Unknown()),
  },
  Open,
);

/** Any content block of a message. */
export const ContentBlockSchema = Type.Union([
  TextBlockSchema,
  ImageBlockSchema,
  DocumentBlockSchema,
  ToolUseBlockSchema,
  ToolResultBlockSchema,
  ThinkingBlockSchema,
  RedactedThinkingBlockSchema,
  ServerToolUseBlockSchema,
  ServerToolResultBlockSchema,
]);

/**
 * `{role, content}`. `system` is accepted too because newer Anthropic SDKs type it as a message role; decode hoists it
 * into the system prompt.
 */
export const MessageParamSchema = Type.Object(
  {
    role: Type.Union([Type.Literal("user"), Type.Literal("assistant"), Type.Literal("system")]),
    content: Type.Union([Type.String(), Type.Array(ContentBlockSchema)]),
  },
  Open,
);

export type TextBlock = Static<typeof TextBlockSchema>;
export type ImageBlock = Static<typeof ImageBlockSchema>;
export type DocumentBlock = Static<typeof DocumentBlockSchema>;
export type ToolResultBlock = Static<typeof ToolResultBlockSchema>;
export type ServerToolUseBlock = Static<typeof ServerToolUseBlockSchema>;
export type ServerToolResultBlock = Static<typeof ServerToolResultBlockSchema>;
export type ContentBlock = Static<typeof ContentBlockSchema>;
export type MessageParam = Static<typeof MessageParamSchema>;
