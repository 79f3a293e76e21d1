/**
 * Canonical response → OpenAI's embeddings list (`{object: "list", data: [{object: "embedding", index, embedding}],
 * model, usage}`), which the `openai` client, the peer SDK, LangChain and the AI SDK all read. `base64`: each vector
 * as little-endian float32 bytes in base64, as OpenAI sends it (its client decodes exactly that).
 */
import type { CanonicalResponse } from "../../model/response.ts";
import type { EncodeContext } from "../format.ts";
import { trailerMetadata } from "../shared/trailer-metadata.ts";

/** Little-endian float32 bytes of `vector`, base64. */
export function float32Base64(vector: readonly number[]): string {
  const bytes = new Float32Array(vector);
  // Float32Array is platform-endian; every platform Bun runs on is little-endian, as the wire format is.
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
}

export function encodeEmbeddings(response: CanonicalResponse, ctx: EncodeContext): Record<string, unknown> {
  const vectors = response.retrieval?.kind === "embeddings" ? response.retrieval.vectors : [];
  const base64 = ctx.request.task?.kind === "embeddings" && ctx.request.task.encodingFormat === "base64";
  const tokens = response.usage.input.total;
  const usage: Record<string, unknown> = { prompt_tokens: tokens, total_tokens: tokens };
  if (response.cost) {
    usage.cost = response.cost.total;
    usage.cost_details = { upstream_inference_cost: response.cost.upstream, upstream_inference_prompt_cost: response.cost.input, upstream_inference_completions_cost: 0 };
  }
  const body: Record<string, unknown> = {
    id: ctx.generationId,
    object: "list",
    data: vectors.map((vector, index) => ({ object: "embedding", index, embedding: base64 ? float32Base64(vector) : vector })),
    model: response.model,
    provider: response.provider,
    usage,
  };
  const metadata = trailerMetadata(ctx.trailer, ctx.request.warnings);
  if (metadata) body.service_metadata = metadata;
  return body;
}
