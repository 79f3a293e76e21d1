/**
 * One retrieval attempt at one endpoint (core/pipeline/turn/attempt.ts calls it instead of `generate` when the
 * request has a task): the adapter's `embed` or `rerank`, answered as a canonical response whose `retrieval` holds
 * the vectors or the ranking and whose usage counts input tokens only (priced per input token like a prompt).
 *
 * Embeddings larger than the model's `max_batch_size` go upstream as several calls, one after another, whose vectors
 * are joined in input order. An upstream that answers with the wrong number of vectors, or ranks a document that
 * does not exist, gets a retryable 502: another endpoint may do better.
 */
import type { CanonicalResponse } from "../model/response.ts";
import { emptyUsage, type Usage } from "../model/usage.ts";
import type { ProviderCall } from "../registry/provider.ts";
import type { Endpoint } from "../routing/catalog.ts";
import { messageTexts } from "./texts.ts";
import type { EmbeddingRequest, EmbeddingTask, RerankTask, RetrievalOutput } from "./types.ts";

/** Typical bytes per token, for an upstream that reports no usage. */
const BYTES_PER_TOKEN = 4;

export async function callRetrieval(endpoint: Endpoint, call: ProviderCall): Promise<CanonicalResponse> {
  const task = call.request.task!;
  const { output, inputTokens, searchUnits } = task.kind === "embeddings" ? await embedAll(endpoint, call, task) : await rerank(endpoint, call, task);
  const usage: Usage = emptyUsage();
  usage.input.total = inputTokens;
  if (searchUnits !== undefined) usage.raw = { search_units: searchUnits };
  return {
    id: "",
    model: endpoint.model.id,
    provider: endpoint.provider.id,
    created: Math.floor(call.helpers.now() / 1000),
    parts: [],
    finish: { reason: "stop" },
    usage,
    warnings: [],
    retrieval: output,
  };
}

interface Answer {
  output: RetrievalOutput;
  inputTokens: number;
  searchUnits?: number;
}

async function embedAll(endpoint: Endpoint, call: ProviderCall, task: EmbeddingTask): Promise<Answer> {
  const embed = endpoint.adapter.embed!;
  const inputs: string[] | number[][] = task.tokens ?? messageTexts(call.request.messages);
  const size = endpoint.model.maxBatchSize ?? inputs.length;
  const vectors: number[][] = [];
  let inputTokens = 0;
  for (let start = 0; start < inputs.length; start += size) {
    const slice = inputs.slice(start, start + size) as string[] | number[][];
    const request: EmbeddingRequest = { inputs: slice };
    if (task.dimensions !== undefined) request.dimensions = task.dimensions;
    if (task.inputType !== undefined) request.inputType = task.inputType;
    if (call.request.user !== undefined) request.user = call.request.user;
    const result = await embed({ request, target: call.target, signal: call.signal, helpers: call.helpers, warnings: call.request.warnings, ...(call.onUpstreamBody ? { onUpstreamBody: call.onUpstreamBody } : {}) });
    if (!Array.isArray(result.vectors) || result.vectors.length !== slice.length) {
      throw badAnswer(call, `The provider returned ${Array.isArray(result.vectors) ? result.vectors.length : "no"} vectors for ${slice.length} inputs`);
    }
    vectors.push(...result.vectors);
    inputTokens += result.inputTokens ?? estimate(slice);
  }
  return { output: { kind: "embeddings", vectors }, inputTokens };
}

async function rerank(endpoint: Endpoint, call: ProviderCall, task: RerankTask): Promise<Answer> {
  const [query = "", ...documents] = messageTexts(call.request.messages);
  const request = task.topN === undefined ? { query, documents } : { query, documents, topN: task.topN };
  const result = await endpoint.adapter.rerank!({ request, target: call.target, signal: call.signal, helpers: call.helpers, warnings: call.request.warnings, ...(call.onUpstreamBody ? { onUpstreamBody: call.onUpstreamBody } : {}) });
  if (!Array.isArray(result.results) || result.results.some((r) => !Number.isInteger(r.index) || r.index < 0 || r.index >= documents.length || typeof r.score !== "number")) {
    throw badAnswer(call, "The provider ranked a document the request does not have");
  }
  const results = task.topN === undefined ? result.results : result.results.slice(0, task.topN);
  const answer: Answer = { output: { kind: "rerank", results }, inputTokens: result.inputTokens ?? estimate([query, ...documents]) };
  if (result.searchUnits !== undefined) {
    answer.searchUnits = result.searchUnits;
    answer.output = { kind: "rerank", results, searchUnits: result.searchUnits };
  }
  return answer;
}

function estimate(inputs: string[] | number[][]): number {
  let tokens = 0;
  for (const input of inputs) tokens += typeof input === "string" ? Math.ceil(Buffer.byteLength(input) / BYTES_PER_TOKEN) : input.length;
  return tokens;
}

function badAnswer(call: ProviderCall, message: string) {
  return call.helpers.error("provider_unavailable", message, { status: 502, retryable: true, metadata: { provider_code: "bad_retrieval_answer" } });
}
