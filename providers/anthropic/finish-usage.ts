/** Anthropic `stop_reason` and `usage` → canonical finish and usage (shared by the body and stream transforms). */
import type { Finish, FinishReason, Usage } from "../../core/sdk/index.ts";
import type { WireStopDetails, WireUsage } from "./wire.ts";

const REASONS: Record<string, FinishReason> = {
  end_turn: "stop",
  stop_sequence: "stop",
  max_tokens: "length",
  tool_use: "tool_calls",
  pause_turn: "pause",
  refusal: "refusal",
  model_context_window_exceeded: "context_window",
  compaction: "other",
};

/** Unified reason with the exact upstream value kept in `raw`, and a refusal's category and explanation. */
export function mapStopReason(stopReason: string | null | undefined, stopSequence: string | null | undefined, stopDetails?: WireStopDetails | null): Finish {
  if (stopReason === null || stopReason === undefined) return { reason: "other" };
  const finish: Finish = { reason: REASONS[stopReason] ?? "other", raw: stopReason };
  if (stopSequence) finish.stopSequence = stopSequence;
  if (stopDetails?.type === "refusal") {
    finish.refusal = {
      category: typeof stopDetails.category === "string" ? stopDetails.category : null,
      explanation: typeof stopDetails.explanation === "string" ? stopDetails.explanation : null,
    };
  }
  return finish;
}

/** Non-negative integer or 0: upstream counters may be null (message_delta) or absent. */
const count = (value: number | null | undefined): number => (typeof value === "number" && value > 0 ? value : 0);

/**
 * Anthropic's `input_tokens` excludes cache reads and writes; canonical `input.total` includes them (the spec's
 * Messages encoder subtracts them again). Server-tool counters keep Anthropic's names.
 */
export function mapUsage(usage: WireUsage): Usage {
  const cacheRead = count(usage.cache_read_input_tokens);
  const cacheWrite = count(usage.cache_creation_input_tokens);
  const out: Usage = {
    input: { total: count(usage.input_tokens) + cacheRead + cacheWrite, cacheRead, cacheWrite },
    output: { total: count(usage.output_tokens), reasoning: count(usage.output_tokens_details?.thinking_tokens) },
    raw: usage,
  };
  const tools: Record<string, number> = {};
  for (const [name, value] of Object.entries(usage.server_tool_use ?? {})) if (typeof value === "number" && value > 0) tools[name] = value;
  if (Object.keys(tools).length > 0) out.serverTools = tools;
  return out;
}

/** Folds a `message_delta` usage into the running one: present counters overwrite (they are cumulative). */
export function mergeUsage(current: WireUsage, update: WireUsage): WireUsage {
  const merged: WireUsage = { ...current };
  for (const [key, value] of Object.entries(update) as Array<[keyof WireUsage, WireUsage[keyof WireUsage]]>) {
    if (value !== null && value !== undefined) (merged as Record<string, unknown>)[key] = value;
  }
  return merged;
}
