/**
 * The `jina` adapter (README "Embeddings and rerank"): Jina AI's retrieval API, rerank and embedding models only.
 * - rerank: `POST {base_url}/rerank` `{model, query, documents, top_n, return_documents: false}` →
 *   `results[].{index, relevance_score}`, `usage.total_tokens`;
 * - embed: the OpenAI-shaped `POST {base_url}/embeddings`, with `task` from the request's `input_type`.
 * Bearer key; default base URL https://api.jina.ai/v1.
 */
import { defineProvider, type EmbeddingCall, type RerankCall, type RerankResult } from "../../core/sdk/index.ts";
import { bearerHeaders, openAiEmbeddings, openAiEmbeddingsBody, postJson, readJsonObject, retrievalOnly, unexpectedBody } from "../../core/sdk/provider.ts";

const base = (call: { target: { baseUrl: string } }) => call.target.baseUrl.replace(/\/+$/, "");

async function rerank(call: RerankCall): Promise<RerankResult> {
  const body: Record<string, unknown> = { model: call.target.upstreamModel, query: call.request.query, documents: call.request.documents, return_documents: false };
  if (call.request.topN !== undefined) body.top_n = call.request.topN;
  call.onUpstreamBody?.(body);
  const reply = await readJsonObject<{ results?: Array<{ index: number; relevance_score: number }>; usage?: { total_tokens?: number } }>(call, await postJson(call, `${base(call)}/rerank`, body, bearerHeaders(call)));
  if (!Array.isArray(reply.results)) throw unexpectedBody(call, "no results array");
  const result: RerankResult = { results: reply.results.map((r) => ({ index: r.index, score: r.relevance_score })) };
  if (typeof reply.usage?.total_tokens === "number") result.inputTokens = reply.usage.total_tokens;
  return result;
}

function embed(call: EmbeddingCall) {
  const body: Record<string, unknown> = { ...openAiEmbeddingsBody(call) };
  if (call.request.inputType !== undefined) body.task = call.request.inputType;
  return openAiEmbeddings(call, `${base(call)}/embeddings`, bearerHeaders(call), body);
}

export default defineProvider({
  id: "jina",
  description: "Jina AI rerank and embeddings (retrieval only: no chat)",
  ...retrievalOnly("jina"),
  rerank,
  embed,
  // The default base URL, and the key its API always needs (start-up refuses an entry without one).
  prepareTarget: (target) => {
    if (!target.apiKey) throw new Error("api_key: required by the jina API");
    return { ...target, baseUrl: target.baseUrl || "https://api.jina.ai/v1" };
  },
});
