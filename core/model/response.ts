/** The canonical response: what every encoder renders and what `collect(events)` builds. */
import type { ErrorType } from "../errors.ts";
import type { RetrievalOutput } from "../retrieval/types.ts";
import type { Part } from "./parts.ts";
import type { Cost, Usage } from "./usage.ts";
import type { Warning } from "./warnings.ts";

/** Unified finish reasons; `raw` keeps the exact upstream value (e.g. `model_context_window_exceeded`). */
export type FinishReason =
  | "stop"
  | "length"
  | "tool_calls"
  | "content_filter"
  | "refusal"
  | "pause"
  | "context_window"
  | "error"
  | "other";

export interface Finish {
  reason: FinishReason;
  raw?: string;
  /** The stop sequence that ended generation, when known. */
  stopSequence?: string | null;
  /** Why the model refused, when the upstream says (Anthropic `stop_details`: policy category and explanation). */
  refusal?: { category: string | null; explanation: string | null };
}

export interface ResponseError {
  type: ErrorType;
  message: string;
  status: number;
  metadata?: Record<string, unknown>;
}

/**
 * The beta `alignment` result field (spec "Responses result"; the alignment plugin): one record per model call the
 * plugin's evaluator judged, numbered from 1 across retries and agent-loop turns.
 */
export interface AlignmentReport {
  calls: Array<
    | { call: number; outcome: "allowed" | "blocked"; rules: Array<{ broken: boolean; probability: number }> }
    | { call: number; outcome: "unavailable"; reason: string }
  >;
}

export interface CanonicalResponse {
  id: string;
  model: string;
  provider: string;
  /** Unix seconds. */
  created: number;
  completed?: number;
  /** Output parts in order: text, reasoning, tool calls, refusals. */
  parts: Part[];
  finish: Finish;
  usage: Usage;
  cost?: Cost;
  serviceTier?: string;
  systemFingerprint?: string | null;
  /** Logprobs of text tokens, as chat-completions shapes them. */
  logprobs?: unknown[];
  warnings: Warning[];
  error?: ResponseError;
  /** The vectors or the ranking of an embeddings or rerank request (its `parts` are empty). */
  retrieval?: RetrievalOutput;
  /** Shown as the result's `alignment` field in every format (set by the alignment plugin). */
  alignment?: AlignmentReport;
}
