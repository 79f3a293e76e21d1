/**
 * Mistral's embeddings (`POST {base_url}/embeddings`): OpenAI's call, except that it names the vector size
 * `output_dimension`, refuses fields outside its schema (422 `extra_forbidden`: `user` is warned and not sent) and
 * embeds texts only (token ids are a 400).
 */
import type { EmbeddingCall, EmbeddingResult } from "../../../core/sdk/index.ts";
import { bearerHeaders, type ErrorFactory, openAiEmbeddings, warnUnsupported } from "../../../core/sdk/provider.ts";

type ErrorMapper = (status: number, body: unknown, headers: Headers, make: ErrorFactory) => ReturnType<ErrorFactory>;

export function mistralEmbed(call: EmbeddingCall, mapError: ErrorMapper): Promise<EmbeddingResult> {
  const { inputs, dimensions, user } = call.request;
  if (inputs.some((input) => typeof input !== "string")) {
    throw call.helpers.error("invalid_request", `Provider ${call.target.providerId} (mistral) embeds texts only, not token ids`, { status: 400, retryable: false, metadata: { param: "input" } });
  }
  const body: Record<string, unknown> = { model: call.target.upstreamModel, input: inputs, encoding_format: "float" };
  if (dimensions !== undefined) body.output_dimension = dimensions;
  if (user !== undefined) warnUnsupported(call.warnings, "user", "Mistral refuses user; it was not sent");
  return openAiEmbeddings(call, `${call.target.baseUrl.replace(/\/+$/, "")}/embeddings`, bearerHeaders(call), body, { mapError });
}
