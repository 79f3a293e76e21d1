/**
 * The simulator's embeddings and rerank (README "Embeddings and rerank"), deterministic so tests can predict them:
 *
 * - `embed`: each input becomes a unit vector (256 dimensions unless `dimensions` asks otherwise) drawn from a
 *   generator seeded with a hash of the input, so the same input always gives the same vector; similar inputs are not
 *   close. Input tokens are counted as the chat simulator counts them (one per word; a token-id array, its length).
 * - `rerank`: a document's score is the share of the query's distinct words it contains (0–1), ties kept in
 *   document order; input tokens are the query's words once per document plus the documents' words.
 *
 * Both honour the `latency_ms` and `fail_status` options like the chat simulator, through the shared error mapping.
 */
import type { EmbeddingCall, EmbeddingResult, RerankCall, RerankResult } from "../../core/sdk/index.ts";
import { mapUpstreamError } from "../../core/sdk/provider.ts";
import { fnv1a } from "./hash.ts";
import type { SimulatorOptions } from "./options.ts";
import { sleep } from "./sleep.ts";
import { countTokens, words } from "./tokenizer.ts";

/** Dimensions of a simulated vector unless the request asks for others. */
export const SIMULATOR_EMBEDDING_DIMENSIONS = 256;
/**
 * The most numbers one request may make (inputs × dimensions): 2,048 inputs of 512 dimensions. A real upstream caps
 * its dimensions; without this, 2,048 inputs × 16,384 dimensions would build a reply of hundreds of megabytes.
 */
export const SIMULATOR_MAX_NUMBERS = 1_048_576;

/** One deterministic unit vector for `input`. */
export function simulatedVector(input: string | readonly number[], dimensions: number): number[] {
  let state = fnv1a(typeof input === "string" ? `t:${input}` : `i:${input.join(",")}`) || 1;
  const vector = new Array<number>(dimensions);
  let norm = 0;
  for (let i = 0; i < dimensions; i++) {
    // xorshift32: cheap, and the same sequence on every platform.
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    const value = state / 0x80000000 - 1;
    vector[i] = value;
    norm += value * value;
  }
  const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  for (let i = 0; i < dimensions; i++) vector[i] = vector[i]! * scale;
  return vector;
}

async function upstreamTurn(call: EmbeddingCall | RerankCall): Promise<void> {
  const options = call.target.options as SimulatorOptions;
  await sleep(options.latency_ms ?? 0, call.signal);
  if (options.fail_status !== undefined) {
    const body = { error: { message: options.fail_message ?? `Simulated failure (${options.fail_status})`, type: "simulator_error" } };
    throw mapUpstreamError(options.fail_status, body, new Headers(), call.helpers.error);
  }
}

export async function simulatorEmbed(call: EmbeddingCall): Promise<EmbeddingResult> {
  call.onUpstreamBody?.(call.request);
  await upstreamTurn(call);
  const { inputs, dimensions = SIMULATOR_EMBEDDING_DIMENSIONS } = call.request;
  if (inputs.length * dimensions > SIMULATOR_MAX_NUMBERS) {
    throw call.helpers.error("invalid_request", `The simulator makes at most ${SIMULATOR_MAX_NUMBERS} numbers per request (inputs × dimensions); this one asks ${inputs.length} × ${dimensions}`, {
      status: 400,
      retryable: false,
      metadata: { param: "dimensions" },
    });
  }
  const vectors = inputs.map((input) => simulatedVector(input, dimensions));
  const inputTokens = inputs.reduce((sum, input) => sum + (typeof input === "string" ? countTokens(input) : input.length), 0);
  return { vectors, inputTokens };
}

export async function simulatorRerank(call: RerankCall): Promise<RerankResult> {
  call.onUpstreamBody?.(call.request);
  await upstreamTurn(call);
  const { query, documents, topN } = call.request;
  const wanted = new Set(words(query.toLowerCase()));
  const scored = documents.map((document, index) => {
    const present = new Set(words(document.toLowerCase()));
    let shared = 0;
    for (const word of wanted) if (present.has(word)) shared++;
    return { index, score: wanted.size === 0 ? 0 : shared / wanted.size };
  });
  // A stable sort: equal scores stay in document order.
  scored.sort((a, b) => b.score - a.score);
  const queryTokens = countTokens(query);
  const inputTokens = documents.reduce((sum, document) => sum + queryTokens + countTokens(document), 0);
  return { results: topN === undefined ? scored : scored.slice(0, topN), inputTokens, searchUnits: Math.max(1, Math.ceil(documents.length / 100)) };
}
