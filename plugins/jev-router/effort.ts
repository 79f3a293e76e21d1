/**
 * jev-router's two decisions besides the model: the cost tier (price percentile thirds of the candidates) and the
 * reasoning effort, both from the classifier's complexity when the request does not say. Tool-using (agentic)
 * requests get at least medium effort: a wrong tool call costs a whole extra turn.
 */
import type { CanonicalRequest } from "../../core/sdk/index.ts";
import type { Candidate } from "../router-kit/candidates.ts";

export type JevTier = "low" | "medium" | "high";
export type Effort = "low" | "medium" | "high";

export const JEV_TIERS: Readonly<Record<JevTier, readonly [number, number]>> = { low: [0, 34], medium: [34, 67], high: [67, 100] };

/** Output tokens assumed per effort, for `estimated_cost` (the request's `max_tokens` wins). */
const OUTPUT_TOKENS: Record<Effort, number> = { low: 500, medium: 1_500, high: 4_000 };

export function tierForComplexity(complexity: number): JevTier {
  return complexity < 0.3 ? "low" : complexity < 0.6 ? "medium" : "high";
}

export function effortFor(complexity: number, agentic: boolean): Effort {
  const effort: Effort = complexity < 0.3 ? "low" : complexity < 0.6 ? "medium" : "high";
  return agentic && effort === "low" ? "medium" : effort;
}

/** USD the request would cost on `candidate` at `effort`: the prompt (≈ 4 characters a token) and the expected output. */
export function estimatedCost(candidate: Candidate, request: CanonicalRequest, promptChars: number, effort: Effort): number {
  const output = request.maxTokens ?? OUTPUT_TOKENS[effort];
  return Math.round((Math.ceil(promptChars / 4) * candidate.promptPrice + output * candidate.completionPrice) * 1e8) / 1e8;
}
