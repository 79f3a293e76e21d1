/**
 * The `cohere` adapter (README "Embeddings and rerank"): Cohere's v2 API, for rerank and embedding models only.
 * - rerank: `POST {base_url}/rerank` `{model, query, documents, top_n}` → `results[].{index, relevance_score}`,
 *   `meta.billed_units.search_units`;
 * - embed: `POST {base_url}/embed` `{model, texts, input_type, embedding_types: ["float"], output_dimension?}` →
 *   `embeddings.float`, `meta.billed_units.input_tokens`. `input_type` is required by Cohere: `search_document`
 *   unless the request says otherwise. Token-id inputs are refused (Cohere embeds texts only).
 * Both shapes are checked against the official `cohere-ai` client (test/integration/embeddings/retrieval-fakes-sdk.test.ts).
 * Bearer key; default base URL https://api.cohere.com/v2.
 */
import { defineProvider, type EmbeddingCall, type EmbeddingResult, type RerankCall, type RerankResult } from "../../core/sdk/index.ts";
import { bearerHeaders, postJson, readJsonObject, retrievalOnly, unexpectedBody } from "../../core/sdk/provider.ts";

const base = (call: { target: { baseUrl: string } }) => call.target.baseUrl.replace(/\/+$/, "");

interface BilledUnits {
  meta?: { billed_units?: { search_units?: number; input_tokens?: number } };
}

async function rerank(call: RerankCall): Promise<RerankResult> {
  const body: Record<string, unknown> = { model: call.target.upstreamModel, query: call.request.query, documents: call.request.documents };
  if (call.request.topN !== undefined) body.top_n = call.request.topN;
  call.onUpstreamBody?.(body);
  const reply = await readJsonObject<{ results?: Array<{ index: number; relevance_score: number }> } & BilledUnits>(call, await postJson(call, `${base(call)}/rerank`, body, bearerHeaders(call)));
  if (!Array.isArray(reply.results)) throw unexpectedBody(call, "no results array");
  const result: RerankResult = { results: reply.results.map((r) => ({ index: r.index, score: r.relevance_score })) };
  const units = reply.meta?.billed_units?.search_units;
  if (typeof units === "number") result.searchUnits = units;
  return result;
}

async function embed(call: EmbeddingCall): Promise<EmbeddingResult> {
  const { inputs, dimensions, inputType } = call.request;
  if (inputs.some((input) => typeof input !== "string")) {
    throw call.helpers.error("invalid_request", `Provider ${call.target.providerId} (cohere) embeds texts only, not token ids`, { status: 400, retryable: false, metadata: { param: "input" } });
  }
  const body: Record<string, unknown> = { model: call.target.upstreamModel, texts: inputs, input_type: inputType ?? "search_document", embedding_types: ["float"] };
  if (dimensions !== undefined) body.output_dimension = dimensions;
  call.onUpstreamBody?.(body);
  const reply = await readJsonObject<{ embeddings?: { float?: number[][] } } & BilledUnits>(call, await postJson(call, `${base(call)}/embed`, body, bearerHeaders(call)));
  const vectors = reply.embeddings?.float;
  if (!Array.isArray(vectors)) throw unexpectedBody(call, "no embeddings.float");
  const tokens = reply.meta?.billed_units?.input_tokens;
  return typeof tokens === "number" ? { vectors, inputTokens: tokens } : { vectors };
}

export default defineProvider({
  id: "cohere",
  description: "Cohere v2 rerank and embed (retrieval only: no chat)",
  ...retrievalOnly("cohere"),
  rerank,
  embed,
  // The default base URL, and the key its API always needs (start-up refuses an entry without one).
  prepareTarget: (target) => {
    if (!target.apiKey) throw new Error("api_key: required by the cohere API");
    return { ...target, baseUrl: target.baseUrl || "https://api.cohere.com/v2" };
  },
});
