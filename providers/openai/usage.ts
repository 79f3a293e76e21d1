/** Chat-completions `usage` → canonical `Usage` (ARCHITECTURE §2). */
import { emptyUsage, type Usage } from "../../core/model/usage.ts";
import type { WireUsage } from "./wire.ts";

/**
 * `prompt_tokens` already includes cached tokens, so it is `input.total` as is; `cached_tokens` (or DeepSeek's
 * `prompt_cache_hit_tokens`) is `cacheRead`; `completion_tokens` includes reasoning tokens. The raw object is kept.
 */
export function mapUsage(usage: WireUsage): Usage {
  const out = emptyUsage();
  out.input.total = num(usage.prompt_tokens);
  out.input.cacheRead = num(usage.prompt_tokens_details?.cached_tokens ?? usage.prompt_cache_hit_tokens);
  out.input.cacheWrite = num(usage.prompt_tokens_details?.cache_write_tokens);
  out.output.total = num(usage.completion_tokens);
  out.output.reasoning = num(usage.completion_tokens_details?.reasoning_tokens);
  out.raw = usage;
  return out;
}

function num(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}
