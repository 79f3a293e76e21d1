/**
 * `embed` of the `vertex` adapter (README "Embeddings and rerank"): Google's text-embedding models (publisher
 * `google`: `text-embedding-005`, `text-multilingual-embedding-002`, `gemini-embedding-001`) through Vertex's
 * `POST {base}/v1/projects/{project}/locations/{location}/publishers/google/models/{model}:predict`
 * `{instances: [{content, task_type?}], parameters: {outputDimensionality?, autoTruncate: false}}` →
 * `predictions[].embeddings.{values, statistics.token_count}`, in request order. The URL comes from the target's plan
 * (./plan.ts), the bearer token and Vertex's own refusals from its fetch (./transport.ts), as for chat calls.
 * `input_type` is `task_type` (`RETRIEVAL_QUERY`, …); `autoTruncate: false` makes an over-long input Vertex's 400
 * rather than a vector of its first part (nothing the client sent is dropped unsaid). Texts only.
 */
import type { EmbeddingCall, EmbeddingResult } from "../../core/sdk/index.ts";
import { postJson, readJsonObject, unexpectedBody } from "../../core/sdk/provider.ts";
import { mapVertexError } from "./errors.ts";
import { planForCall } from "./plan.ts";
import { vertexHelpers } from "./transport.ts";

interface Prediction {
  embeddings?: { values?: number[]; statistics?: { token_count?: number; truncated?: boolean } };
}

function predictBody(texts: string[], call: EmbeddingCall): Record<string, unknown> {
  const { inputType, dimensions } = call.request;
  const instances = texts.map((content) => (inputType === undefined ? { content } : { content, task_type: inputType }));
  const parameters: Record<string, unknown> = { autoTruncate: false };
  if (dimensions !== undefined) parameters.outputDimensionality = dimensions;
  return { instances, parameters };
}

export async function vertexEmbed(call: EmbeddingCall): Promise<EmbeddingResult> {
  const plan = planForCall(call);
  const { providerId } = call.target;
  if (plan.publisher !== "google") {
    throw call.helpers.error("invalid_request", `Provider ${providerId} (vertex) serves embeddings from Google's models only, not ${plan.publisher} ones`, { status: 400, retryable: false, metadata: { param: "model" } });
  }
  const texts = call.request.inputs.map((input) => {
    if (typeof input === "string") return input;
    throw call.helpers.error("invalid_request", `Provider ${providerId} (vertex) embeds texts only, not token ids`, { status: 400, retryable: false, metadata: { param: "input" } });
  });
  const body = predictBody(texts, call);
  call.onUpstreamBody?.(body);
  const vertex = { ...call, helpers: vertexHelpers(call.helpers, plan, "generate") };
  const response = await postJson(vertex, plan.predictUrl, body, {}, { mapError: mapVertexError });
  const reply = await readJsonObject<{ predictions?: Prediction[] }>(vertex, response);
  const predictions = reply.predictions;
  if (!Array.isArray(predictions) || predictions.length !== texts.length || predictions.some((p) => !Array.isArray(p?.embeddings?.values))) {
    throw unexpectedBody(call, "no predictions[].embeddings.values, one per instance");
  }
  let inputTokens: number | undefined;
  for (const prediction of predictions) {
    const count = prediction.embeddings!.statistics?.token_count;
    if (typeof count === "number" && Number.isFinite(count)) inputTokens = (inputTokens ?? 0) + count;
  }
  const vectors = predictions.map((p) => p.embeddings!.values!);
  return inputTokens === undefined ? { vectors } : { vectors, inputTokens };
}
