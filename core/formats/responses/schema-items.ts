/**
 * TypeBox schemas of Responses `input` items and their content parts (spec "Responses request", input items).
 * Item objects stay open (extra keys allowed) because clients echo back whole output items of earlier results,
 * which carry fields newer than this schema (`phase`, `namespace`, …); decode keeps what the canonical model holds.
 */
import { Type, type Static } from "@sinclair/typebox";
import { CacheControlSchema, ImageDetailSchema, Nullable, Open, StringEnum } from "../shared/schema.ts";

/** `{type: input_text, text}`. */
export const InputTextSchema = Type.Object(
  { type: Type.Literal("input_text"), text: Type.String(), cache_control: Type.Optional(CacheControlSchema) },
  Open,
);

/** `{type: input_image, image_url | file_id, detail}`; decode requires one of the two sources. */
export const InputImageSchema = Type.Object(
  {
    type: Type.Literal("input_image"),
    image_url: Type.Optional(Nullable(Type.String())),
    file_id: Type.Optional(Nullable(Type.String())),
    detail: Type.Optional(ImageDetailSchema),
    cache_control: Type.Optional(CacheControlSchema),
  },
  Open,
);

/** `{type: input_file, file_data | file_url | file_id, filename}`; decode requires one source. */
export const InputFileSchema = Type.Object(
  {
    type: Type.Literal("input_file"),
    file_data: Type.Optional(Type.String()),
    file_url: Type.Optional(Type.String()),
    file_id: Type.Optional(Nullable(Type.String())),
    filename: Type.Optional(Type.String()),
    cache_control: Type.Optional(CacheControlSchema),
  },
  Open,
);

/** `{type: output_text, text, annotations}`: assistant text echoed back from an earlier result. */
export const OutputTextSchema = Type.Object(
  {
    type: Type.Literal("output_text"),
    text: Type.String(),
    annotations: Type.Optional(Type.Array(Type.Unknown())),
    logprobs: Type.Optional(Type.Array(Type.Unknown())),
  },
  Open,
);

/** `{type: refusal, refusal}`: an assistant refusal echoed back. */
export const RefusalSchema = Type.Object({ type: Type.Literal("refusal"), refusal: Type.String() }, Open);

/** Any content part a message item may hold. */
export const MessageContentSchema = Type.Union([
  InputTextSchema,
  InputImageSchema,
  InputFileSchema,
  OutputTextSchema,
  RefusalSchema,
]);

/**
 * A message item: the "easy" form (`role`, `content` string or parts, `type` optional) and the output-message form
 * (`id`, `status`, `type: message`, assistant `output_text` / `refusal` content) share one shape.
 */
export const MessageItemSchema = Type.Object(
  {
    type: Type.Optional(Type.Literal("message")),
    role: StringEnum(["user", "assistant", "system", "developer"]),
    content: Type.Union([Type.String(), Type.Array(MessageContentSchema)]),
    id: Type.Optional(Nullable(Type.String())),
    status: Type.Optional(Nullable(Type.String())),
  },
  Open,
);

/** A function call the model made in an earlier turn. */
export const FunctionCallItemSchema = Type.Object(
  {
    type: Type.Literal("function_call"),
    call_id: Type.String({ minLength: 1 }),
    name: Type.String({ minLength: 1 }),
    arguments: Type.String(),
    id: Type.Optional(Nullable(Type.String())),
    status: Type.Optional(Nullable(Type.String())),
  },
  Open,
);

/** The client's result for a function call, keyed by the original `call_id`. */
export const FunctionCallOutputItemSchema = Type.Object(
  {
    type: Type.Literal("function_call_output"),
    call_id: Type.String({ minLength: 1 }),
    output: Type.Union([Type.String(), Type.Array(Type.Union([InputTextSchema, InputImageSchema, InputFileSchema]))]),
    id: Type.Optional(Nullable(Type.String())),
    status: Type.Optional(Nullable(Type.String())),
  },
  Open,
);

/** A reasoning item carried back (text, summary, signature, encrypted content). */
export const ReasoningItemSchema = Type.Object(
  {
    type: Type.Literal("reasoning"),
    id: Type.Optional(Nullable(Type.String())),
    summary: Type.Optional(Type.Array(Type.Object({ type: Type.Literal("summary_text"), text: Type.String() }, Open))),
    content: Type.Optional(
      Nullable(Type.Array(Type.Object({ type: Type.Literal("reasoning_text"), text: Type.String() }, Open))),
    ),
    encrypted_content: Type.Optional(Nullable(Type.String())),
    signature: Type.Optional(Nullable(Type.String())),
    format: Type.Optional(Nullable(Type.String())),
    status: Type.Optional(Nullable(Type.String())),
  },
  Open,
);

/**
 * A server tool the gateway ran in an earlier reply, echoed back (`service:web_search`, or the peer's spelling
 * `openrouter:web_search`). The tool's own fields (`action`, `datetime`, `result` …) ride along as
 * extra keys: decode keeps them as the result.
 */
export const ServerToolItemSchema = Type.Object(
  {
    type: Type.String({ pattern: "^(?:service|openrouter):.+$" }),
    id: Type.String({ minLength: 1 }),
    call_id: Type.Optional(Nullable(Type.String())),
    status: Type.Optional(Nullable(Type.String())),
    arguments: Type.Optional(Nullable(Type.String())),
    error: Type.Optional(Nullable(Type.String())),
  },
  Open,
);

/** Item types the decoder translates; other item types (`web_search_call` …) are accepted and warned about. */
export const KNOWN_ITEM_TYPES = ["message", "function_call", "function_call_output", "reasoning"] as const;

/**
 * Any other item (`web_search_call`, …). The pattern excludes the known types and server-tool items so a malformed
 * known item is rejected by its own schema instead of slipping through here.
 */
export const OtherItemSchema = Type.Object(
  { type: Type.String({ pattern: `^(?!(?:${KNOWN_ITEM_TYPES.join("|")})$)(?!service:)(?!openrouter:).+$` }) },
  Open,
);

/** One entry of `input`. */
export const InputItemSchema = Type.Union([
  MessageItemSchema,
  FunctionCallItemSchema,
  FunctionCallOutputItemSchema,
  ReasoningItemSchema,
  ServerToolItemSchema,
  OtherItemSchema,
]);

/** A schema-valid `input_text` part. */
export type InputText = Static<typeof InputTextSchema>;
/** A schema-valid `input_image` part. */
export type InputImage = Static<typeof InputImageSchema>;
/** A schema-valid `input_file` part. */
export type InputFile = Static<typeof InputFileSchema>;
/** Any schema-valid message content part. */
export type MessageContent = Static<typeof MessageContentSchema>;
/** A schema-valid message item (easy or output form). */
export type MessageItem = Static<typeof MessageItemSchema>;
/** A schema-valid `function_call` item. */
export type FunctionCallItem = Static<typeof FunctionCallItemSchema>;
/** A schema-valid `function_call_output` item. */
export type FunctionCallOutputItem = Static<typeof FunctionCallOutputItemSchema>;
/** A schema-valid `reasoning` item. */
export type ReasoningItem = Static<typeof ReasoningItemSchema>;
/** A schema-valid `service:*` server-tool item. */
export type ServerToolItem = Static<typeof ServerToolItemSchema>;
/** Any schema-valid `input` entry. */
export type InputItem = Static<typeof InputItemSchema>;
