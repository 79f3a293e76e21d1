/** Wire format contract: decode a body to canonical, encode canonical back, stream events as SSE. */
import type { TSchema } from "@sinclair/typebox";
import type { EventStream } from "../model/events.ts";
import type { CanonicalRequest, InboundFormat } from "../model/request.ts";
import type { CanonicalResponse } from "../model/response.ts";
import type { Trailer } from "../pipeline/outcome.ts";

export interface EncodeContext {
  request: CanonicalRequest;
  /** The id the client sees (also the `X-Generation-Id` header). */
  generationId: string;
  /**
   * The outcome's trailer (routing metadata, container): data the edge settles before the encoder writes the frames
   * that show it — before encoding a response, as a stream closes. An encoder never calls back into the request.
   */
  trailer?: Trailer;
}

/** The chat formats, and the retrieval ones (README "Embeddings and rerank"), whose requests carry a task. */
export type FormatId = InboundFormat | "embeddings" | "rerank";

/** A chat format (chat-completions, Responses, Messages): presets can be made from its bodies. */
export type ChatWireFormat = WireFormat & { readonly id: InboundFormat };

/** True for the chat formats (the ones presets and prompt templates apply to). */
export function isChatFormat(id: FormatId): id is InboundFormat {
  return id === "chat" || id === "responses" || id === "messages";
}

export interface WireFormat {
  readonly id: FormatId;
  /** TypeBox schema of the request body: validated at the edge (compiled once) and published in the OpenAPI docs. */
  readonly schema: TSchema;
  /**
   * Body (already schema-valid) → canonical request. Enforces the spec's semantic 400 rules by throwing
   * GatewayError `invalid_request` with a message naming the field.
   */
  decode(body: Record<string, unknown>, headers: Headers): CanonicalRequest;
  /** Canonical response → result body. */
  encode(response: CanonicalResponse, ctx: EncodeContext): Record<string, unknown>;
  /**
   * Canonical events → complete SSE frames (`data: …\n\n`, or `event: x\ndata: …\n\n`), relayed one by one as they
   * arrive, ending with the format's terminal frame (`data: [DONE]` where the format has it). An `error` event is
   * rendered as the format's in-band terminal error.
   */
  stream(events: EventStream, ctx: EncodeContext): AsyncIterable<string>;
  /** Frame sent on idle streams; defaults to the SSE comment `: SERVICE PROCESSING` (Messages uses `ping`). */
  readonly keepAliveFrame?: string;
}
