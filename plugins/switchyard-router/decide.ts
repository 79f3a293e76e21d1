/**
 * switchyard-router's tier decision: the efficient tier (the cheapest of the request's models)
 * answers when it is likely enough to solve the task, else the capable tier (the dearest). "Likely enough" depends
 * on how sure the verdict is about the task being within the efficient model's reach: `p_solve` must reach 0.60
 * when the boundary is `supported`, 0.75 when `uncertain` or `unmatched`, 0.90 when `unsupported`.
 */
import type { Classification } from "../router-kit/classify.ts";

export type Boundary = "supported" | "uncertain" | "unmatched" | "unsupported";
export type Tier = "efficient" | "capable";

export interface Verdict {
  boundary: Boundary;
  /** Probability (0–1) that the efficient model solves the task. */
  pSolve: number;
}

const THRESHOLDS: Record<Boundary, number> = { supported: 0.6, uncertain: 0.75, unmatched: 0.75, unsupported: 0.9 };
const SIMPLE_TASKS = new Set(["chat", "extraction", "summarization", "translation"]);

export function tierFor(verdict: Verdict): Tier {
  return verdict.pSolve >= THRESHOLDS[verdict.boundary] ? "efficient" : "capable";
}

/**
 * The local capability rule, from the classifier: simple, short tasks are within reach (`supported`), demanding
 * ones are not (`unsupported`), the rest is `uncertain` (the `stage` algorithm asks the judge then).
 */
export function ruleVerdict(classification: Classification): Verdict {
  const { task, complexity } = classification;
  const pSolve = Math.round((1 - complexity) * 100) / 100;
  if (complexity >= 0.6) return { boundary: "unsupported", pSolve };
  if (complexity < 0.3 && (task === undefined || SIMPLE_TASKS.has(task))) return { boundary: "supported", pSolve };
  return { boundary: "uncertain", pSolve };
}

/** `composite`: the judge's boundary, the mean of both probabilities. */
export function combine(rule: Verdict, judge: Verdict): Verdict {
  return { boundary: judge.boundary, pSolve: Math.round(((rule.pSolve + judge.pSolve) / 2) * 100) / 100 };
}
