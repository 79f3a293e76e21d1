/**
 * TypeBox schemas of chat-completions messages and their content parts (spec "Chat-completions request":
 * role-discriminated `messages`). Objects stay open (extra keys allowed) because real clients echo back fields of
 * earlier results (`annotations`, `images`, `audio`…); decode warns about the ones it drops.
 */
import { Type, type Static } from "@sinclair/typebox";
import { CacheControlSchema, ImageDetailSchema, Nullable } from "../shared/schema.ts";

/** `{type: text, text}` content part. */
export const TextContentSchema = Type.Object({
  type: Type.Literal("text"),
  text: Type.String(),
  cache_control: Type.Optional(CacheControlSchema),
});

/** `{type: image_url, image_url: {url, detail?}}` content part (http(s) or data: URL). */
export const ImageContentSchema = Type.Object({
  type: Type.Literal("image_url"),
  image_url: Type.Object({
    url: Type.String(),
    detail: Type.Optional(ImageDetailSchema),
  }),
  cache_control: Type.Optional(CacheControlSchema),
});

/** `{type: input_audio, input_audio: {data (base64), format}}` content part. */
export const AudioContentSchema = Type.Object({
  type: Type.Literal("input_audio"),
  input_audio: Type.Object({ data: Type.String(), format: Type.String() }),
});

/** `{type: file, file: {file_data? | file_id?, filename?}}` content part; decode requires one of data or id. */
export const FileContentSchema = Type.Object({
  type: Type.Literal("file"),
  file: Type.Object({
    file_data: Type.Optional(Type.String()),
    file_id: Type.Optional(Type.String()),
    filename: Type.Optional(Type.String()),
  }),
  cache_control: Type.Optional(CacheControlSchema),
});

/** `{type: refusal, refusal}` content part of an assistant message. */
export const RefusalContentSchema = Type.Object({ type: Type.Literal("refusal"), refusal: Type.String() });

const UserContentPartSchema = Type.Union([
  TextContentSchema,
  ImageContentSchema,
  AudioContentSchema,
  FileContentSchema,
]);
const TextOnlyContent = Type.Union([Type.String(), Type.Array(TextContentSchema)]);
const name = Type.Optional(Type.String());

/** A tool call the assistant made earlier, echoed back by the client (`arguments` is the model's JSON text). */
export const ToolCallSchema = Type.Object({
  id: Type.String(),
  type: Type.Literal("function"),
  function: Type.Object({ name: Type.String(), arguments: Type.String() }),
});

/**
 * A server tool the gateway ran in an earlier reply, echoed back as the result listed it
 * (`message.server_tool_calls[]`): `type` is the tool (`service:datetime`), `result` what it returned.
 */
export const ServerToolCallSchema = Type.Object({
  id: Type.String({ minLength: 1 }),
  type: Type.String({ minLength: 1 }),
  call_id: Type.Optional(Nullable(Type.String())),
  arguments: Type.Optional(Nullable(Type.String())),
  status: Type.Optional(Nullable(Type.String())),
  result: Type.Optional(Type.Unknown()),
  error: Type.Optional(Nullable(Type.String())),
});

const detailCommon = {
  id: Type.Optional(Nullable(Type.String())),
  format: Type.Optional(Nullable(Type.String())),
  index: Type.Optional(Type.Integer()),
};

/** One `reasoning_details` item (reasoning.text / reasoning.summary / reasoning.encrypted). */
export const ReasoningDetailSchema = Type.Union([
  Type.Object({
    type: Type.Literal("reasoning.text"),
    text: Type.Optional(Nullable(Type.String())),
    signature: Type.Optional(Nullable(Type.String())),
    ...detailCommon,
  }),
  Type.Object({ type: Type.Literal("reasoning.summary"), summary: Type.String(), ...detailCommon }),
  Type.Object({ type: Type.Literal("reasoning.encrypted"), data: Type.String(), ...detailCommon }),
]);

/** `system` message: instructions (text only). */
export const SystemMessageSchema = Type.Object({ role: Type.Literal("system"), content: TextOnlyContent, name });

/** `developer` message: the newer name of `system` for OpenAI reasoning models. */
export const DeveloperMessageSchema = Type.Object({ role: Type.Literal("developer"), content: TextOnlyContent, name });

/** `user` message: text, images, audio and files. */
export const UserMessageSchema = Type.Object({
  role: Type.Literal("user"),
  content: Type.Union([Type.String(), Type.Array(UserContentPartSchema)]),
  name,
});

/** `assistant` message of an earlier turn; `content` may be null or absent when it only called tools. */
export const AssistantMessageSchema = Type.Object({
  role: Type.Literal("assistant"),
  content: Type.Optional(
    Nullable(Type.Union([Type.String(), Type.Array(Type.Union([TextContentSchema, RefusalContentSchema]))])),
  ),
  refusal: Type.Optional(Nullable(Type.String())),
  name,
  tool_calls: Type.Optional(Nullable(Type.Array(ToolCallSchema))),
  server_tool_calls: Type.Optional(Nullable(Type.Array(ServerToolCallSchema))),
  reasoning: Type.Optional(Nullable(Type.String())),
  reasoning_details: Type.Optional(Nullable(Type.Array(ReasoningDetailSchema))),
});

/** `tool` message: the result of one client-run tool call. */
export const ToolMessageSchema = Type.Object({
  role: Type.Literal("tool"),
  content: TextOnlyContent,
  tool_call_id: Type.String(),
  name,
});

/** Any chat message, discriminated by `role`. */
export const ChatMessageSchema = Type.Union([
  SystemMessageSchema,
  DeveloperMessageSchema,
  UserMessageSchema,
  AssistantMessageSchema,
  ToolMessageSchema,
]);

export type ChatMessage = Static<typeof ChatMessageSchema>;
export type ChatUserContentPart = Static<typeof UserContentPartSchema>;
export type ChatReasoningDetail = Static<typeof ReasoningDetailSchema>;
export type ChatTextContent = Static<typeof TextContentSchema>;
