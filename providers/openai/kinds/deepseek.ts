/**
 * DeepSeek (`api.deepseek.com`): reasoning arrives as `reasoning_content` (read by the translation); earlier reasoning
 * must never travel back (the server refuses a request carrying it), so it is stripped from every assistant turn; its
 * cache counts are `prompt_cache_hit_tokens` / `prompt_cache_miss_tokens` (the hits are cache reads, both together
 * the prompt when `prompt_tokens` is missing); it knows `max_tokens` only.
 */
import type { Usage } from "../../../core/sdk/index.ts";
import type { ReplyQuirk } from "../quirks.ts";
import { type KindSpec, stripReasoningHistory, useMaxTokens } from "./shared.ts";

/** Hit and miss counts into the usage (the translation already reads the hits as cache reads). */
export function deepSeekUsage(usage: Usage): Usage {
  const raw = (usage.raw ?? {}) as { prompt_cache_hit_tokens?: unknown; prompt_cache_miss_tokens?: unknown };
  const hit = typeof raw.prompt_cache_hit_tokens === "number" ? raw.prompt_cache_hit_tokens : undefined;
  const miss = typeof raw.prompt_cache_miss_tokens === "number" ? raw.prompt_cache_miss_tokens : undefined;
  if (hit === undefined && miss === undefined) return usage;
  const cacheRead = hit ?? usage.input.cacheRead;
  const total = Math.max(usage.input.total, cacheRead + (miss ?? 0));
  return { ...usage, input: { ...usage.input, total, cacheRead } };
}

const reply: ReplyQuirk = { usage: deepSeekUsage };

export const deepseek: KindSpec = {
  description: "DeepSeek",
  defaultBaseUrl: "https://api.deepseek.com",
  requiresKey: true,
  quirks: {
    request(body, call) {
      stripReasoningHistory(body);
      useMaxTokens(body, call);
    },
    reply: () => reply,
  },
};
