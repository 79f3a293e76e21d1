/**
 * xAI (`api.x.ai/v1`): grok-3-mini's reasoning arrives as `reasoning_content` (read by the translation); its usage
 * counts `reasoning_tokens` apart from `completion_tokens` (the total is prompt + completion + reasoning), so the
 * reasoning is added to the output; `cost_in_usd_ticks` (10^10 ticks to the dollar) is what xAI charged. Its
 * reasoning models refuse `presence_penalty`, `frequency_penalty` and `stop`, and all but grok-3-mini refuse
 * `reasoning_effort`: those are dropped with a warning.
 */
import type { Usage } from "../../../core/sdk/index.ts";
import type { ReplyQuirk } from "../quirks.ts";
import { dropRefused, type KindSpec } from "./shared.ts";

const TICKS_PER_USD = 1e10;

/** xAI's usage → canonical: reasoning tokens join the output when the upstream counted them apart. */
export function xaiUsage(usage: Usage): Usage {
  const raw = (usage.raw ?? {}) as {
    prompt_tokens?: number;
    completion_tokens?: number;
    total_tokens?: number;
    cost_in_usd_ticks?: number;
    completion_tokens_details?: { reasoning_tokens?: number } | null;
  };
  const reasoning = raw.completion_tokens_details?.reasoning_tokens ?? 0;
  const completion = raw.completion_tokens ?? 0;
  let out = usage;
  // Apart when the total says so (or says nothing): then completion_tokens is the answer alone.
  const apart = raw.total_tokens === undefined || raw.total_tokens >= (raw.prompt_tokens ?? 0) + completion + reasoning;
  if (reasoning > 0 && apart) out = { ...out, output: { ...out.output, total: completion + reasoning, reasoning } };
  if (typeof raw.cost_in_usd_ticks === "number" && raw.cost_in_usd_ticks >= 0) out = { ...out, upstreamCost: raw.cost_in_usd_ticks / TICKS_PER_USD };
  return out;
}

/** Reasoning models: grok-3-mini and grok-4 (not its `non-reasoning` variants). */
export function isXaiReasoningModel(model: string): boolean {
  return /grok-3-mini|grok-4|reasoning/.test(model) && !model.includes("non-reasoning");
}

const reply: ReplyQuirk = { usage: xaiUsage };

export const xai: KindSpec = {
  description: "xAI",
  defaultBaseUrl: "https://api.x.ai/v1",
  requiresKey: true,
  quirks: {
    request(body, call) {
      const model = call.target.upstreamModel;
      if (!isXaiReasoningModel(model)) return;
      const refused = model.includes("grok-3-mini") ? ["presence_penalty", "frequency_penalty", "stop"] : ["presence_penalty", "frequency_penalty", "stop", "reasoning_effort"];
      dropRefused(body, refused, `xAI's ${model}`, call.request.warnings);
    },
    reply: () => reply,
  },
};
