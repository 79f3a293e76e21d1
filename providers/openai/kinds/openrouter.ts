/**
 * OpenRouter as an upstream (`openrouter.ai/api/v1`): reasoning is asked for with its `reasoning` object (`effort`,
 * `max_tokens`, `summary`, `enabled`) and comes back as `reasoning_details` (read by the translation, signatures and
 * encrypted blobs included); the request's provider-routing preferences (`provider`: order, only, ignore, sort,
 * data_collection, quantizations, max_price, …) travel on, over the provider entry's own (`options.provider`), so
 * OpenRouter's routing among its providers honours them (slugs naming this gateway provider are left out: they chose
 * it); `usage.cost` is what OpenRouter charged, shown as `upstream_inference_cost`.
 */
import type { ProviderCall, Usage } from "../../../core/sdk/index.ts";
import { isPlainObject } from "../../../core/sdk/provider.ts";
import type { ReplyQuirk } from "../quirks.ts";
import type { ChatRequestBody } from "../wire.ts";
import type { KindSpec } from "./shared.ts";

/** The `reasoning` object of OpenRouter's chat request. */
function reasoningOf(call: ProviderCall): Record<string, unknown> | undefined {
  const r = call.request.reasoning;
  if (r === undefined) return undefined;
  const out: Record<string, unknown> = { ...r.extra };
  if (r.effort !== undefined) out.effort = r.effort;
  if (r.maxTokens !== undefined) out.max_tokens = r.maxTokens;
  if (r.summary !== undefined) out.summary = r.summary;
  if (r.enabled !== undefined) out.enabled = r.enabled;
  return Object.keys(out).length > 0 ? out : undefined;
}

const SLUG_LISTS = ["order", "only", "ignore"];

/** The provider preferences sent on: the entry's, then the request's field by field, without this provider's id. */
export function openRouterPreferences(call: ProviderCall): Record<string, unknown> | undefined {
  const configured = isPlainObject(call.target.options.provider) ? call.target.options.provider : {};
  const merged: Record<string, unknown> = { ...configured, ...call.request.provider };
  for (const field of SLUG_LISTS) {
    const list = merged[field];
    if (!Array.isArray(list)) continue;
    const kept = list.filter((slug) => slug !== call.target.providerId);
    if (kept.length > 0) merged[field] = kept;
    else delete merged[field];
  }
  return Object.keys(merged).length > 0 ? merged : undefined;
}

/** `usage.cost` (USD OpenRouter charged) into the usage. */
export function openRouterUsage(usage: Usage): Usage {
  const cost = (usage.raw as { cost?: unknown } | undefined)?.cost;
  return typeof cost === "number" && cost >= 0 ? { ...usage, upstreamCost: cost } : usage;
}

const reply: ReplyQuirk = { usage: openRouterUsage };

export const openrouter: KindSpec = {
  description: "OpenRouter",
  defaultBaseUrl: "https://openrouter.ai/api/v1",
  requiresKey: true,
  quirks: {
    request(body: ChatRequestBody, call) {
      // Its reasoning object carries what `reasoning_effort` cannot (a token budget, a summary); no warning applies.
      const reasoning = reasoningOf(call);
      delete body.reasoning_effort;
      if (reasoning !== undefined) body.reasoning = reasoning;
      const preferences = openRouterPreferences(call);
      if (preferences !== undefined) body.provider = preferences;
    },
    ownsReasoning: true,
    reply: () => reply,
  },
};
