/**
 * Canonical reasoning → Anthropic `thinking` / `output_config.effort`, and the constraints Anthropic puts on a
 * thinking request: `budget_tokens` ≥ 1024 and < `max_tokens`; `temperature` only 1, no `top_k`, `top_p` ≥ 0.95.
 */
import type { CanonicalRequest, ReasoningSettings, Warning } from "../../core/sdk/index.ts";
import { warn } from "../../core/sdk/provider.ts";
import type { WireRequestBody } from "./wire.ts";

/** Anthropic's smallest thinking budget. */
export const MIN_THINKING_BUDGET = 1024;

/** Effort → thinking budget, for clients that speak effort (chat `reasoning_effort`, Responses `reasoning.effort`). */
export const EFFORT_BUDGET: Record<NonNullable<ReasoningSettings["effort"]>, number> = {
  none: 0,
  minimal: 1024,
  low: 2048,
  medium: 8192,
  high: 16384,
  xhigh: 32768,
  max: 64000,
};

/** `output_config.effort` values Anthropic knows. */
const ANTHROPIC_EFFORTS: ReadonlySet<string> = new Set(["low", "medium", "high", "xhigh", "max"]);

/**
 * Sets `thinking` (and `output_config.effort` for Messages clients, who name it natively). `maxTokensDefaulted`
 * says whether `max_tokens` came from the adapter default and may therefore grow to fit the budget.
 */
export function applyThinking(body: WireRequestBody, request: CanonicalRequest, maxTokensDefaulted: boolean, defaultMaxTokens: number, warnings: Warning[]): void {
  const r = request.reasoning;
  if (r === undefined) return;
  const display = typeof r.extra?.display === "string" ? r.extra.display : undefined;
  const nativeEffort = request.format === "messages" && r.effort !== undefined && r.effort !== "none";
  if (nativeEffort) setEffort(body, r.effort as string, warnings);
  if (r.enabled === false || r.effort === "none") {
    body.thinking = { type: "disabled" };
    return;
  }
  if (r.extra?.type === "adaptive") {
    body.thinking = display === undefined ? { type: "adaptive" } : { type: "adaptive", display };
    constrainSampling(body, warnings);
    return;
  }
  // A Messages client that only named an effort asked for effort, not for extended thinking.
  if (r.enabled !== true && r.maxTokens === undefined && (nativeEffort || r.effort === undefined)) return;
  let budget = r.maxTokens ?? EFFORT_BUDGET[r.effort ?? "medium"];
  if (budget < MIN_THINKING_BUDGET) {
    warn(warnings, "approximated", "reasoning.max_tokens", `Anthropic's smallest thinking budget is ${MIN_THINKING_BUDGET}; it was used instead of ${budget}`);
    budget = MIN_THINKING_BUDGET;
  }
  if (body.max_tokens <= budget) {
    if (maxTokensDefaulted) body.max_tokens = budget + defaultMaxTokens;
    else {
      budget = body.max_tokens - 1;
      if (budget < MIN_THINKING_BUDGET) {
        warn(warnings, "unsupported_field", "reasoning", `max_tokens ${body.max_tokens} leaves no room for Anthropic's minimum thinking budget; thinking was not enabled`);
        return;
      }
      warn(warnings, "approximated", "reasoning.max_tokens", `The thinking budget was lowered to ${budget} to stay below max_tokens`);
    }
  }
  body.thinking = display === undefined ? { type: "enabled", budget_tokens: budget } : { type: "enabled", budget_tokens: budget, display };
  constrainSampling(body, warnings);
}

function setEffort(body: WireRequestBody, effort: string, warnings: Warning[]): void {
  const value = ANTHROPIC_EFFORTS.has(effort) ? effort : "low";
  if (value !== effort) warn(warnings, "approximated", "output_config.effort", `Effort \`${effort}\` is not an Anthropic level; \`low\` was sent`);
  body.output_config = { ...body.output_config, effort: value };
}

/** Drops the sampling settings Anthropic rejects while thinking, saying so. */
function constrainSampling(body: WireRequestBody, warnings: Warning[]): void {
  if (body.temperature !== undefined && body.temperature !== 1) {
    delete body.temperature;
    warn(warnings, "unsupported_field", "temperature", "Anthropic only accepts temperature 1 with thinking; temperature was not sent");
  }
  if (body.top_k !== undefined) {
    delete body.top_k;
    warn(warnings, "unsupported_field", "top_k", "Anthropic does not accept top_k with thinking; top_k was not sent");
  }
  if (body.top_p !== undefined && body.top_p < 0.95) {
    delete body.top_p;
    warn(warnings, "unsupported_field", "top_p", "Anthropic only accepts top_p ≥ 0.95 with thinking; top_p was not sent");
  }
}
