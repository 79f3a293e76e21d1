/** The endpoints a batch may target, each with the wire format its request bodies are in. */
import { chatFormat } from "../formats/chat/index.ts";
import { embeddingsFormat } from "../formats/embeddings/index.ts";
import type { WireFormat } from "../formats/format.ts";
import { messagesFormat } from "../formats/messages/index.ts";
import { responsesFormat } from "../formats/responses/index.ts";

const FORMATS: ReadonlyMap<string, WireFormat> = new Map([
  ["/chat/completions", chatFormat],
  ["/responses", responsesFormat],
  ["/messages", messagesFormat],
  ["/embeddings", embeddingsFormat],
]);

/** The accepted endpoint spellings, for error messages and docs. */
export const BATCH_ENDPOINTS: readonly string[] = [...FORMATS.keys()];

/** The format of an endpoint; a leading `/v1` is accepted (clients copy OpenAI's paths). */
export function formatOfEndpoint(endpoint: string): WireFormat | undefined {
  return FORMATS.get(endpoint.startsWith("/v1/") ? endpoint.slice(3) : endpoint);
}
