/**
 * Canonical reasoning → Claude's extended thinking on Bedrock, through `additionalModelRequestFields.thinking`
 * (`{type: "enabled", budget_tokens}`, or `{type: "adaptive"}`), under Claude's rules: a budget of at least 1,024 tokens
 * and below `maxTokens`, and no sampling Claude refuses while thinking (temperature other than 1, `top_k`, `top_p`
 * below 0.95). Effort words become budgets as they do for Anthropic's API (README "Reasoning"); a Messages client's own
 * `output_config.effort` goes to Converse's `outputConfig.effort`. Bedrock's other models take no reasoning settings
 * through Converse: they are reported, not sent.
 */
import type { CanonicalRequest, ReasoningSettings, Warning } from "../../core/sdk/index.ts";
import { warn, warnUnsupported } from "../../core/sdk/provider.ts";
import type { ModelTraits } from "./models.ts";
import type { WireRequestBody } from "./wire.ts";

const MIN_THINKING_BUDGET = 1024;

/** Effort → thinking budget (the same table as the Anthropic adapter's). */
const EFFORT_BUDGET: Record<NonNullable<ReasoningSettings["effort"]>, number> = {
  none: 0,
  minimal: 1024,
  low: 2048,
  medium: 8192,
  high: 16384,
  xhigh: 32768,
  max: 64000,
};

/** Effort levels Claude's `effort` knows. */
const CLAUDE_EFFORTS: ReadonlySet<string> = new Set(["low", "medium", "high", "xhigh", "max"]);

/** Whether the request asks for reasoning at all (a switch off is not a request for it). */
function asksForReasoning(r: ReasoningSettings): boolean {
  if (r.enabled === false || r.effort === "none") return false;
  return r.enabled === true || r.maxTokens !== undefined || r.effort !== undefined || r.extra?.type === "adaptive";
}

/** Sets thinking (and effort) on `body`; `defaultMaxTokens` is what `maxTokens` becomes when a budget needs one. */
export function applyReasoning(body: WireRequestBody, request: CanonicalRequest, traits: ModelTraits, defaultMaxTokens: number, warnings: Warning[]): void {
  const r = request.reasoning;
  if (r === undefined || !asksForReasoning(r)) return;
  if (!traits.claude) {
    warnUnsupported(warnings, "reasoning", "Bedrock takes reasoning settings through Converse for Claude models only; they were not sent to this model");
    return;
  }
  const display = typeof r.extra?.display === "string" ? r.extra.display : undefined;
  const nativeEffort = request.format === "messages" && r.effort !== undefined;
  if (nativeEffort) setEffort(body, r.effort as string, warnings);
  if (r.extra?.type === "adaptive") {
    body.additionalModelRequestFields = { ...body.additionalModelRequestFields, thinking: display === undefined ? { type: "adaptive" } : { type: "adaptive", display } };
    constrainSampling(body, warnings);
    return;
  }
  // A Messages client that only named an effort asked for effort, not for extended thinking.
  if (r.enabled !== true && r.maxTokens === undefined && nativeEffort) return;
  let budget = r.maxTokens ?? EFFORT_BUDGET[r.effort ?? "medium"];
  if (budget < MIN_THINKING_BUDGET) {
    warn(warnings, "approximated", "reasoning.max_tokens", `Claude's smallest thinking budget is ${MIN_THINKING_BUDGET}; it was used instead of ${budget}`);
    budget = MIN_THINKING_BUDGET;
  }
  const inference = (body.inferenceConfig ??= {});
  if (inference.maxTokens === undefined) {
    inference.maxTokens = budget + defaultMaxTokens;
    warn(warnings, "defaulted", "max_tokens", `Claude's thinking budget must stay below max_tokens; ${inference.maxTokens} was sent`);
  } else if (inference.maxTokens <= budget) {
    budget = inference.maxTokens - 1;
    if (budget < MIN_THINKING_BUDGET) {
      warn(warnings, "unsupported_field", "reasoning", `max_tokens ${inference.maxTokens} leaves no room for Claude's minimum thinking budget; thinking was not enabled`);
      return;
    }
    warn(warnings, "approximated", "reasoning.max_tokens", `The thinking budget was lowered to ${budget} to stay below max_tokens`);
  }
  const thinking = display === undefined ? { type: "enabled", budget_tokens: budget } : { type: "enabled", budget_tokens: budget, display };
  body.additionalModelRequestFields = { ...body.additionalModelRequestFields, thinking };
  constrainSampling(body, warnings);
}

function setEffort(body: WireRequestBody, effort: string, warnings: Warning[]): void {
  const value = CLAUDE_EFFORTS.has(effort) ? effort : "low";
  if (value !== effort) warn(warnings, "approximated", "output_config.effort", `Effort \`${effort}\` is not a Claude level; \`low\` was sent`);
  body.outputConfig = { ...body.outputConfig, effort: value };
}

/** Drops the sampling settings Claude refuses while thinking, saying so. */
function constrainSampling(body: WireRequestBody, warnings: Warning[]): void {
  const inference = body.inferenceConfig;
  if (inference?.temperature !== undefined && inference.temperature !== 1) {
    delete inference.temperature;
    warn(warnings, "unsupported_field", "temperature", "Claude only accepts temperature 1 with thinking; temperature was not sent");
  }
  if (body.additionalModelRequestFields?.top_k !== undefined) {
    delete body.additionalModelRequestFields.top_k;
    warn(warnings, "unsupported_field", "top_k", "Claude does not accept top_k with thinking; top_k was not sent");
  }
  if (inference?.topP !== undefined && inference.topP < 0.95) {
    delete inference.topP;
    warn(warnings, "unsupported_field", "top_p", "Claude only accepts top_p ≥ 0.95 with thinking; top_p was not sent");
  }
}
