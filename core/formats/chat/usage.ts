/** Canonical usage + cost → the chat `usage` object (spec "Chat-completions result body" `usage`). */
import type { Cost, Usage } from "../../model/usage.ts";

/** The chat `usage` object, as the result body and the final stream chunk carry it. */
export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: {
    cached_tokens: number;
    cache_write_tokens: number;
    audio_tokens: number;
    file_tokens: number;
    video_tokens: number;
  };
  completion_tokens_details: { reasoning_tokens: number; audio_tokens: number; image_tokens: number };
  server_tool_use?: Record<string, number>;
  cost?: number;
  cost_details?: {
    upstream_inference_cost: number | null;
    upstream_inference_prompt_cost: number;
    upstream_inference_completions_cost: number;
  };
}

/**
 * `prompt_tokens` is the canonical input total, which (as in OpenAI's usage) already includes cached and cache-write
 * tokens. Modalities the canonical usage does not count (audio, file, video, image) are reported as 0. `cost` is
 * left out when accounting attached none, rather than claiming a free call.
 */
export function chatUsage(usage: Usage, cost?: Cost): ChatUsage {
  const out: ChatUsage = {
    prompt_tokens: usage.input.total,
    completion_tokens: usage.output.total,
    total_tokens: usage.input.total + usage.output.total,
    prompt_tokens_details: {
      cached_tokens: usage.input.cacheRead,
      cache_write_tokens: usage.input.cacheWrite,
      audio_tokens: 0,
      file_tokens: 0,
      video_tokens: 0,
    },
    completion_tokens_details: { reasoning_tokens: usage.output.reasoning, audio_tokens: 0, image_tokens: 0 },
  };
  if (usage.serverTools && Object.keys(usage.serverTools).length > 0) out.server_tool_use = { ...usage.serverTools };
  if (cost) {
    out.cost = cost.total;
    out.cost_details = {
      upstream_inference_cost: cost.upstream,
      upstream_inference_prompt_cost: cost.input,
      upstream_inference_completions_cost: cost.output,
    };
  }
  return out;
}
