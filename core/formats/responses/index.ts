/** The Responses wire format (spec "Responses request", "Responses result", "Events"). */
import type { ChatWireFormat } from "../format.ts";
import { decodeResponses } from "./decode.ts";
import { encodeResponses } from "./encode.ts";
import { ResponsesRequestSchema } from "./schema.ts";
import { streamResponses } from "./stream.ts";

/** `POST /responses`: body schema, decoder, result encoder and SSE stream encoder. */
export const responsesFormat: ChatWireFormat = Object.freeze({
  id: "responses",
  schema: ResponsesRequestSchema,
  decode: decodeResponses,
  encode: encodeResponses,
  stream: streamResponses,
});
