/**
 * Embeddings and rerank, adapter-neutral (README "Embeddings and rerank"): what an adapter's `embed` and `rerank`
 * calls get and return, and the task a canonical request carries when it is one of them. The texts themselves stay
 * in the request's messages (one user message per input, or the query then each document), so input guardrails read
 * and redact them as they do a chat prompt; the adapter gets them back already redacted.
 */
import type { Warning } from "../model/warnings.ts";
import type { ModuleHelpers } from "../registry/helpers.ts";
import type { UpstreamTarget } from "../registry/provider.ts";

/** An embeddings request's own settings (`POST /embeddings`); its text inputs are the request's messages. */
export interface EmbeddingTask {
  kind: "embeddings";
  /** Token-id inputs (`input: [1, 2]` or `[[1, 2], [3]]`), in place of texts: they are not text, guardrails skip them. */
  tokens?: number[][];
  /** How many dimensions each vector should have, when the client asked (OpenAI `dimensions`). */
  dimensions?: number;
  /** How the client wants the vectors: the gateway always asks upstream for floats and encodes base64 itself. */
  encodingFormat: "float" | "base64";
  /** `input_type` (Cohere, Voyage and the peer: `search_query`, `search_document`, …), passed where an upstream takes it. */
  inputType?: string;
}

/** A rerank request's own settings (`POST /rerank`); the query is the first message, each document one after it. */
export interface RerankTask {
  kind: "rerank";
  /** How many results to return (best first); absent: all of them. */
  topN?: number;
}

/** What a canonical request is for, when it is not a chat generation. */
export type RetrievalTask = EmbeddingTask | RerankTask;

/** What one adapter `embed` call is asked: a slice of the request's inputs (max_batch_size splits larger ones). */
export interface EmbeddingRequest {
  /** Texts, or token-id arrays (an adapter whose upstream takes no token ids refuses them with a 400). */
  inputs: string[] | number[][];
  dimensions?: number;
  inputType?: string;
  /** The client's `user`, for upstreams that take it. */
  user?: string;
}

/** One adapter `embed` call: like a ProviderCall, with an embedding request in place of a chat one. */
export interface EmbeddingCall {
  request: EmbeddingRequest;
  target: UpstreamTarget;
  signal: AbortSignal;
  helpers: ModuleHelpers;
  /** The request's warnings: what the upstream cannot carry goes here (`warnUnsupported`), as on chat calls. */
  warnings: Warning[];
  /** Called once with the exact body sent upstream. */
  onUpstreamBody?: (body: unknown) => void;
}

/** What an `embed` call returns: one vector per input, in input order, and the input tokens the upstream counted. */
export interface EmbeddingResult {
  vectors: number[][];
  /** Input tokens as the upstream reported them; undefined when it reports none (the gateway then estimates). */
  inputTokens?: number;
}

/** What one adapter `rerank` call is asked. */
export interface RerankRequest {
  query: string;
  documents: string[];
  topN?: number;
}

/** One adapter `rerank` call. */
export interface RerankCall {
  request: RerankRequest;
  target: UpstreamTarget;
  signal: AbortSignal;
  helpers: ModuleHelpers;
  /** The request's warnings, as for `embed`. */
  warnings: Warning[];
  onUpstreamBody?: (body: unknown) => void;
}

/** One scored document: its index in the request's `documents` and its relevance. */
export interface RankedDocument {
  index: number;
  score: number;
}

/** What a `rerank` call returns: documents best first (at most `topN`), and what the upstream counted. */
export interface RerankResult {
  results: RankedDocument[];
  inputTokens?: number;
  /** Cohere's billing unit (one query over up to 100 documents), when the upstream reports it. */
  searchUnits?: number;
}

/** A retrieval answer as the canonical response carries it (`CanonicalResponse.retrieval`). */
export type RetrievalOutput = { kind: "embeddings"; vectors: number[][] } | { kind: "rerank"; results: RankedDocument[]; searchUnits?: number };
