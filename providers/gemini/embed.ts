/**
 * `embed` of the `gemini` adapter (README "Embeddings and rerank"): one input is
 * `POST {base_url}/models/{model}:embedContent` `{content: {parts: [{text}]}, taskType?, outputDimensionality?}` →
 * `embedding.values`; several are one `:batchEmbedContents` `{requests: [{model: "models/{model}", content, …}]}` →
 * `embeddings[].values`, in request order. `taskType` is the request's `input_type` (`RETRIEVAL_QUERY`, …). Gemini
 * reports no token counts here, so the gateway estimates them; it embeds texts only (token ids are a 400).
 */
import type { EmbeddingCall, EmbeddingResult } from "../../core/sdk/index.ts";
import { postJson, readJsonObject, unexpectedBody } from "../../core/sdk/provider.ts";
import { mapGeminiError } from "./errors.ts";
import { geminiHeaders } from "./request.ts";

interface ContentEmbedding {
  values?: number[];
}

function embedRequest(text: string, call: EmbeddingCall, model?: string): Record<string, unknown> {
  const request: Record<string, unknown> = model === undefined ? {} : { model };
  request.content = { parts: [{ text }] };
  if (call.request.inputType !== undefined) request.taskType = call.request.inputType;
  if (call.request.dimensions !== undefined) request.outputDimensionality = call.request.dimensions;
  return request;
}

export async function geminiEmbed(call: EmbeddingCall): Promise<EmbeddingResult> {
  const { inputs } = call.request;
  const texts = inputs.map((input) => {
    if (typeof input === "string") return input;
    throw call.helpers.error("invalid_request", `Provider ${call.target.providerId} (gemini) embeds texts only, not token ids`, { status: 400, retryable: false, metadata: { param: "input" } });
  });
  const model = call.target.upstreamModel.replace(/^models\//, "");
  const root = `${call.target.baseUrl.replace(/\/+$/, "")}/models/${model}`;
  const options = { mapError: mapGeminiError };
  if (texts.length === 1) {
    const body = embedRequest(texts[0]!, call);
    call.onUpstreamBody?.(body);
    const reply = await readJsonObject<{ embedding?: ContentEmbedding }>(call, await postJson(call, `${root}:embedContent`, body, geminiHeaders(call.target), options));
    if (!Array.isArray(reply.embedding?.values)) throw unexpectedBody(call, "no embedding.values");
    return { vectors: [reply.embedding.values] };
  }
  const body = { requests: texts.map((text) => embedRequest(text, call, `models/${model}`)) };
  call.onUpstreamBody?.(body);
  const reply = await readJsonObject<{ embeddings?: ContentEmbedding[] }>(call, await postJson(call, `${root}:batchEmbedContents`, body, geminiHeaders(call.target), options));
  if (!Array.isArray(reply.embeddings) || reply.embeddings.some((e) => !Array.isArray(e.values))) throw unexpectedBody(call, "no embeddings[].values");
  return { vectors: reply.embeddings.map((e) => e.values!) };
}
