/** Converse `stopReason` and `usage` → canonical finish and usage (shared by the reply and stream translations). */
import type { Finish, FinishReason, Usage } from "../../core/sdk/index.ts";
import type { WireUsage } from "./wire.ts";

const REASONS: Record<string, FinishReason> = {
  end_turn: "stop",
  stop_sequence: "stop",
  max_tokens: "length",
  tool_use: "tool_calls",
  guardrail_intervened: "content_filter",
  content_filtered: "content_filter",
  model_context_window_exceeded: "context_window",
};

/**
 * Unified reason with Bedrock's value kept in `raw`. `answeredByTool`: the only tool the model called was the JSON
 * answer's (./output.ts), so the turn ended with an answer, not with calls for the client.
 */
export function mapStopReason(stopReason: string | undefined, answeredByTool = false): Finish {
  if (stopReason === undefined) return { reason: "other" };
  if (stopReason === "tool_use" && answeredByTool) return { reason: "stop", raw: "end_turn" };
  return { reason: REASONS[stopReason] ?? "other", raw: stopReason };
}

const count = (value: number | undefined): number => (typeof value === "number" && value > 0 ? value : 0);

/**
 * Bedrock's `inputTokens` excludes the cache reads and writes it counts beside it; canonical `input.total` includes
 * them. Bedrock reports no reasoning count of its own (reasoning is within `outputTokens`).
 */
export function mapUsage(usage: WireUsage): Usage {
  const cacheRead = count(usage.cacheReadInputTokens);
  const cacheWrite = count(usage.cacheWriteInputTokens);
  return {
    input: { total: count(usage.inputTokens) + cacheRead + cacheWrite, cacheRead, cacheWrite },
    output: { total: count(usage.outputTokens), reasoning: 0 },
    raw: usage,
  };
}
