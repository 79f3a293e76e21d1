/** Canonical usage + cost → the chat `usage` object (spec "Chat-completions result body" `usage`). */
import type { Cost, Usage } from "../../model/usage.ts";
import { serverToolRequests, serverToolUseDetails, type ServerToolUseDetails } from "../shared/server-tool-usage.ts";

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
  /** Requests per server tool (`web_search_requests`, `web_fetch_requests`, …), when any server tool ran. */
  server_tool_use?: Record<string, number>;
  /** The agent loop's counters. */
  server_tool_use_details?: ServerToolUseDetails;
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
 * left out when accounting attached none, rather than claiming a free call. Server-tool counters: the per-tool
 * request counts under `server_tool_use` (the docs' `usage.server_tool_use.web_search_requests`; batch usage sums
 * them), the loop's requested / executed counts under `server_tool_use_details`.
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
  const requests = serverToolRequests(usage);
  if (requests) out.server_tool_use = requests;
  const details = serverToolUseDetails(usage);
  if (details) out.server_tool_use_details = details;
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
