/**
 * `generate` and `stream` of an adapter whose upstream has no chat API, only embeddings and rerank (Cohere-, Jina-
 * and Voyage-style providers): a 400 naming the provider. The catalog already refuses a chat request for a model
 * whose entry says `embeddings` or `rerank`; this answers one whose entry forgot to.
 */
import type { EventStream } from "../model/events.ts";
import type { CanonicalResponse } from "../model/response.ts";
import type { ProviderCall } from "../registry/provider.ts";

export function retrievalOnly(name: string): { generate(call: ProviderCall): Promise<CanonicalResponse>; stream(call: ProviderCall): Promise<EventStream> } {
  const refuse = (call: ProviderCall): never => {
    throw call.helpers.error("invalid_request", `Provider ${call.target.providerId} (${name}) serves embeddings and rerank only: give its model entries output_modalities ["embeddings"] or ["rerank"]`, {
      status: 400,
      retryable: false,
    });
  };
  return { generate: async (call) => refuse(call), stream: async (call) => refuse(call) };
}
