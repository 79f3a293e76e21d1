/**
 * A batch's aggregate usage (spec "Batch" `usage`): the sum of its completed requests' chat `usage` objects,
 * whose `cost` is already the discounted price the key was charged.
 */
import { isRecord, type Json } from "../presets/json.ts";
import type { BatchItemRecord } from "../store/types/batches.ts";
import { roundUsd } from "../accounting/money.ts";

const num = (value: unknown): number => (typeof value === "number" && Number.isFinite(value) ? value : 0);

/** Sums the usage of the completed items into the spec's batch usage object. */
export function aggregateUsage(items: readonly BatchItemRecord[]): Json {
  let prompt = 0;
  let completion = 0;
  let cached = 0;
  let cacheWrite = 0;
  let reasoning = 0;
  let cost = 0;
  let promptCost = 0;
  let completionCost = 0;
  let upstream: number | null = null;
  const serverTools: Record<string, number> = {};
  for (const item of items) {
    const body = item.status === "completed" && isRecord(item.result) ? item.result.body : undefined;
    const usage = isRecord(body) ? body.usage : undefined;
    if (!isRecord(usage)) continue;
    prompt += num(usage.prompt_tokens);
    completion += num(usage.completion_tokens);
    const promptDetails = isRecord(usage.prompt_tokens_details) ? usage.prompt_tokens_details : {};
    cached += num(promptDetails.cached_tokens);
    cacheWrite += num(promptDetails.cache_write_tokens);
    reasoning += num(isRecord(usage.completion_tokens_details) ? usage.completion_tokens_details.reasoning_tokens : 0);
    cost += num(usage.cost);
    const details = isRecord(usage.cost_details) ? usage.cost_details : {};
    promptCost += num(details.upstream_inference_prompt_cost);
    completionCost += num(details.upstream_inference_completions_cost);
    if (typeof details.upstream_inference_cost === "number") upstream = (upstream ?? 0) + details.upstream_inference_cost;
    if (isRecord(usage.server_tool_use)) for (const [key, value] of Object.entries(usage.server_tool_use)) serverTools[key] = (serverTools[key] ?? 0) + num(value);
  }
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    // Cache writes are not split by TTL upstream of us; they are reported as 5-minute writes.
    cache_creation: { ephemeral_1h_input_tokens: 0, ephemeral_5m_input_tokens: cacheWrite },
    completion_tokens_details: { reasoning_tokens: reasoning },
    prompt_tokens_details: { cached_tokens: cached, cache_write_tokens: cacheWrite },
    cost: roundUsd(cost),
    cost_details: {
      upstream_inference_completions_cost: roundUsd(completionCost),
      upstream_inference_cost: upstream === null ? null : roundUsd(upstream),
      upstream_inference_prompt_cost: roundUsd(promptCost),
    },
    is_byok: false,
    iterations: [],
    server_tool_use: serverTools,
    service_tier: "batch",
    speed: "standard",
  };
}

/** Completed and failed counts of finished items. */
export function countEnded(items: readonly BatchItemRecord[]): { completed: number; failed: number } {
  let completed = 0;
  let failed = 0;
  for (const item of items) {
    if (item.status === "completed") completed++;
    else if (item.status === "failed") failed++;
  }
  return { completed, failed };
}
