/** Chat-completions `usage` → canonical `Usage`. */
import type { Usage } from "../../core/sdk/index.ts";
import { openAiFamilyUsage } from "../../core/sdk/provider.ts";
import type { WireUsage } from "./wire.ts";

/**
 * `prompt_tokens` already includes cached tokens, so it is `input.total` as is; `cached_tokens` (or DeepSeek's
 * `prompt_cache_hit_tokens`) is `cacheRead`; `completion_tokens` includes reasoning tokens. The raw object is kept.
 */
export function mapUsage(usage: WireUsage): Usage {
  return openAiFamilyUsage(
    {
      input: usage.prompt_tokens,
      cacheRead: usage.prompt_tokens_details?.cached_tokens ?? usage.prompt_cache_hit_tokens,
      cacheWrite: usage.prompt_tokens_details?.cache_write_tokens,
      output: usage.completion_tokens,
      reasoning: usage.completion_tokens_details?.reasoning_tokens,
    },
    usage,
  );
}
