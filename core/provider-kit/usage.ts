/** Usage translation the OpenAI-family adapters (chat completions, Responses) share. */
import type { Usage } from "../model/usage.ts";

/**
 * OpenAI-family token counts → canonical `Usage`. In this family the input count already includes cached tokens and
 * the output count includes reasoning tokens, so each is taken as is; a missing or non-numeric count is 0. The raw
 * upstream object is kept.
 */
export function openAiFamilyUsage(
  counts: { input: unknown; cacheRead: unknown; cacheWrite: unknown; output: unknown; reasoning: unknown },
  raw: unknown,
): Usage {
  return {
    input: { total: num(counts.input), cacheRead: num(counts.cacheRead), cacheWrite: num(counts.cacheWrite) },
    output: { total: num(counts.output), reasoning: num(counts.reasoning) },
    raw,
  };
}

function num(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}
