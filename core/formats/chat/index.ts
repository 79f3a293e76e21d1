/** The chat-completions wire format, `POST /chat/completions` (spec "Chat-completions request"). */
import type { ChatWireFormat } from "../format.ts";
import { decodeChat } from "./decode.ts";
import { encodeChat } from "./encode.ts";
import { ChatRequestSchema } from "./schema.ts";
import { streamChat } from "./stream.ts";

/** Registered by the routes; also encodes batch results (chat is the batch result body). */
export const chatFormat: ChatWireFormat = Object.freeze({
  id: "chat",
  schema: ChatRequestSchema,
  decode: decodeChat,
  encode: encodeChat,
  stream: streamChat,
});

export { ChatRequestSchema, type ChatRequest } from "./schema.ts";
export type { ChatCompletion } from "./encode.ts";
export type { ChatChunk } from "./chunk.ts";
