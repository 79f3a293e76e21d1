/** The Messages wire format (spec "Messages request", "Messages result"): what `@anthropic-ai/sdk` speaks. */
import type { ChatWireFormat } from "../format.ts";
import { decodeMessagesRequest } from "./decode.ts";
import { encodeMessagesResult } from "./encode.ts";
import { MessagesRequestSchema } from "./schema.ts";
import { PING_FRAME, streamMessages } from "./stream.ts";

/** `POST /messages`: decode, encode and stream for Anthropic-style clients. */
export const messagesFormat: ChatWireFormat = Object.freeze({
  id: "messages",
  schema: MessagesRequestSchema,
  decode: decodeMessagesRequest,
  encode: encodeMessagesResult,
  stream: streamMessages,
  // Anthropic clients expect `event: ping` keep-alives rather than SSE comments.
  keepAliveFrame: PING_FRAME,
});

export { MessagesRequestSchema, type MessagesRequest } from "./schema.ts";
export { PING_FRAME } from "./stream.ts";
