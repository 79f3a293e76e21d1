/** A model's prices as the catalog replies show them (`GET /models` and the per-model endpoint list). */
import type { Pricing } from "../config/types.ts";

/** Prices as decimal strings, as OpenRouter publishes them. */
export function pricingView(p: Pricing): Record<string, string> {
  const out: Record<string, string> = { prompt: String(p.prompt), completion: String(p.completion) };
  if (p.cacheRead !== undefined) out.input_cache_read = String(p.cacheRead);
  if (p.cacheWrite !== undefined) out.input_cache_write = String(p.cacheWrite);
  if (p.reasoning !== undefined) out.internal_reasoning = String(p.reasoning);
  if (p.request !== undefined) out.request = String(p.request);
  if (p.image !== undefined) out.image = String(p.image);
  return out;
}
