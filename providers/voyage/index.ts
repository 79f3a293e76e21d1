/**
 * The `voyage` adapter (README "Embeddings and rerank"): Voyage AI's API, rerank and embedding models only.
 * - rerank: `POST {base_url}/rerank` `{model, query, documents, top_k}` → `data[].{index, relevance_score}`,
 *   `usage.total_tokens`;
 * - embed: `POST {base_url}/embeddings` `{model, input, input_type?, output_dimension?}` → `data[].{index, embedding}`
 *   (OpenAI's list), `usage.total_tokens` only (no `prompt_tokens`: the shared reader falls back to it).
 * Both shapes are checked against the official `voyageai` client (test/integration/embeddings/retrieval-fakes-sdk.test.ts).
 * Bearer key; default base URL https://api.voyageai.com/v1.
 */
import { defineProvider, type EmbeddingCall, type RerankCall, type RerankResult } from "../../core/sdk/index.ts";
import { bearerHeaders, openAiEmbeddings, postJson, readJsonObject, retrievalOnly, unexpectedBody } from "../../core/sdk/provider.ts";

const base = (call: { target: { baseUrl: string } }) => call.target.baseUrl.replace(/\/+$/, "");

async function rerank(call: RerankCall): Promise<RerankResult> {
  const body: Record<string, unknown> = { model: call.target.upstreamModel, query: call.request.query, documents: call.request.documents };
  if (call.request.topN !== undefined) body.top_k = call.request.topN;
  call.onUpstreamBody?.(body);
  const reply = await readJsonObject<{ data?: Array<{ index: number; relevance_score: number }>; usage?: { total_tokens?: number } }>(call, await postJson(call, `${base(call)}/rerank`, body, bearerHeaders(call)));
  if (!Array.isArray(reply.data)) throw unexpectedBody(call, "no data array");
  const result: RerankResult = { results: reply.data.map((r) => ({ index: r.index, score: r.relevance_score })) };
  if (typeof reply.usage?.total_tokens === "number") result.inputTokens = reply.usage.total_tokens;
  return result;
}

function embed(call: EmbeddingCall) {
  const body: Record<string, unknown> = { model: call.target.upstreamModel, input: call.request.inputs };
  if (call.request.inputType !== undefined) body.input_type = call.request.inputType;
  if (call.request.dimensions !== undefined) body.output_dimension = call.request.dimensions;
  return openAiEmbeddings(call, `${base(call)}/embeddings`, bearerHeaders(call), body);
}

export default defineProvider({
  id: "voyage",
  description: "Voyage AI rerank and embeddings (retrieval only: no chat)",
  ...retrievalOnly("voyage"),
  rerank,
  embed,
  // The default base URL, and the key its API always needs (start-up refuses an entry without one).
  prepareTarget: (target) => {
    if (!target.apiKey) throw new Error("api_key: required by the voyage API");
    return { ...target, baseUrl: target.baseUrl || "https://api.voyageai.com/v1" };
  },
});
