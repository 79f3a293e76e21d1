/**
 * `embed` of the `bedrock` adapter (README "Embeddings and rerank"): InvokeModel (`POST /model/{id}/invoke`, signed
 * like Converse) on the two embedding families Bedrock serves:
 * - Amazon Titan (`amazon.titan-embed-…`): one text per call, `{inputText, dimensions?}` → `{embedding,
 *   inputTextTokenCount}`; several inputs are several calls, in order;
 * - Cohere (`cohere.embed-…`): `{texts, input_type, embedding_types: ["float"], output_dimension?}` →
 *   `{embeddings: {float}}` (96 texts per call at most: give the model entry `max_batch_size: 96`).
 * Token counts come from the body (Titan) or Bedrock's `x-amzn-bedrock-input-token-count` header. Texts only.
 */
import type { EmbeddingCall, EmbeddingResult } from "../../core/sdk/index.ts";
import { readJsonObject, unexpectedBody } from "../../core/sdk/provider.ts";
import { endpointOf } from "./endpoint.ts";
import { signedPost } from "./signed-post.ts";

function texts(call: EmbeddingCall): string[] {
  return call.request.inputs.map((input) => {
    if (typeof input === "string") return input;
    throw call.helpers.error("invalid_request", `Provider ${call.target.providerId} (bedrock) embeds texts only, not token ids`, { status: 400, retryable: false, metadata: { param: "input" } });
  });
}

function headerTokens(response: Response): number | undefined {
  const value = Number(response.headers.get("x-amzn-bedrock-input-token-count") ?? Number.NaN);
  return Number.isFinite(value) ? value : undefined;
}

async function invoke<T>(call: EmbeddingCall, body: Record<string, unknown>): Promise<{ reply: T; tokens: number | undefined }> {
  const endpoint = endpointOf(call);
  call.onUpstreamBody?.(body);
  const { response } = await signedPost(call, endpoint, endpoint.invokeUrl, JSON.stringify(body), "application/json");
  const tokens = headerTokens(response);
  return { reply: await readJsonObject<T>(call, response), tokens };
}

async function titan(call: EmbeddingCall, inputs: string[]): Promise<EmbeddingResult> {
  const vectors: number[][] = [];
  let inputTokens = 0;
  for (const inputText of inputs) {
    const body: Record<string, unknown> = { inputText };
    if (call.request.dimensions !== undefined) body.dimensions = call.request.dimensions;
    const { reply, tokens } = await invoke<{ embedding?: number[]; inputTextTokenCount?: number }>(call, body);
    if (!Array.isArray(reply.embedding)) throw unexpectedBody(call, "no embedding");
    vectors.push(reply.embedding);
    inputTokens += reply.inputTextTokenCount ?? tokens ?? 0;
  }
  return { vectors, inputTokens };
}

async function cohere(call: EmbeddingCall, inputs: string[]): Promise<EmbeddingResult> {
  const body: Record<string, unknown> = { texts: inputs, input_type: call.request.inputType ?? "search_document", embedding_types: ["float"] };
  if (call.request.dimensions !== undefined) body.output_dimension = call.request.dimensions;
  const { reply, tokens } = await invoke<{ embeddings?: { float?: number[][] } | number[][] }>(call, body);
  const vectors = Array.isArray(reply.embeddings) ? reply.embeddings : reply.embeddings?.float;
  if (!Array.isArray(vectors)) throw unexpectedBody(call, "no embeddings");
  return tokens === undefined ? { vectors } : { vectors, inputTokens: tokens };
}

export function bedrockEmbed(call: EmbeddingCall): Promise<EmbeddingResult> {
  const inputs = texts(call);
  // Cross-region inference profiles prefix the model id with a geography (`us.cohere.embed-v4:0`).
  return /(^|\.)cohere\./.test(call.target.upstreamModel) ? cohere(call, inputs) : titan(call, inputs);
}
