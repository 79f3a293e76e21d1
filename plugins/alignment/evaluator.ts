/**
 * The evaluator: the configured model (`evaluator_model`, any model of the gateway) asked, in a request of its own
 * inside this one (billed with it), for the probability that the turn breaks each rule — every rule judged on its
 * own, one probability each, in the request's rule order. Cut at `evaluator_timeout_ms`. Whatever goes wrong makes
 * the call `unavailable` with its reason: `evaluator_error` (the call failed), `malformed_answer` (not the JSON
 * asked for), `time_limit`, or `cut` (the turn was too large to judge, and was not sent).
 */
import type { CanonicalRequest } from "../../core/sdk/index.ts";
import type { CanonicalResponse } from "../../core/sdk/index.ts";
import type { PluginContext } from "../../core/sdk/index.ts";
import { assistantView, isCut } from "./message.ts";
import type { AlignmentSettings } from "./settings.ts";

export type Judgement =
  | { outcome: "allowed" | "blocked"; rules: Array<{ broken: boolean; probability: number }> }
  | { outcome: "unavailable"; reason: "evaluator_error" | "malformed_answer" | "time_limit" | "cut" };

const INSTRUCTIONS = `You check one message an AI assistant wrote against rules its user set.
For every rule, on its own, give the probability (from 0 to 1) that the message breaks that rule.
Answer with one JSON object and nothing else: {"probabilities": [<rule 0>, <rule 1>, ...]}, one number per rule, in order.`;

export async function judge(ctx: PluginContext, settings: AlignmentSettings, response: CanonicalResponse): Promise<Judgement> {
  const view = assistantView(response);
  if (isCut(view)) return { outcome: "unavailable", reason: "cut" };
  const rules = settings.rules.map((rule, i) => `${i}: ${rule}`).join("\n");
  const request: CanonicalRequest = {
    format: ctx.request.format,
    model: settings.evaluatorModel,
    models: [],
    system: [{ type: "text", text: INSTRUCTIONS }],
    messages: [{ role: "user", parts: [{ type: "text", text: `Rules:\n${rules}\n\nMessage (JSON):\n${JSON.stringify(view)}` }] }],
    tools: [],
    sampling: { temperature: 0 },
    maxTokens: 64 + 16 * settings.rules.length,
    output: { format: { type: "json_object" } },
    stream: false,
    plugins: [],
    warnings: [],
    original: {},
  };
  const timer = AbortSignal.timeout(settings.evaluatorTimeoutMs);
  let text: string;
  try {
    const answer = await ctx.complete(request, { signal: timer });
    text = answer.parts.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");
  } catch {
    return { outcome: "unavailable", reason: timer.aborted ? "time_limit" : "evaluator_error" };
  }
  const probabilities = parseProbabilities(text, settings.rules.length);
  if (!probabilities) return { outcome: "unavailable", reason: "malformed_answer" };
  const rulesOut = probabilities.map((p) => ({ broken: p >= settings.threshold, probability: p }));
  return { outcome: rulesOut.some((r) => r.broken) ? "blocked" : "allowed", rules: rulesOut };
}

/** `{"probabilities": [...]}` (or a bare array) with one number in [0, 1] per rule; the first JSON value in the text. */
export function parseProbabilities(text: string, count: number): number[] | undefined {
  const start = text.search(/[[{]/);
  if (start < 0) return undefined;
  const end = Math.max(text.lastIndexOf("}"), text.lastIndexOf("]"));
  let value: unknown;
  try {
    value = JSON.parse(text.slice(start, end + 1));
  } catch {
    return undefined;
  }
  const list = Array.isArray(value) ? value : (value as { probabilities?: unknown } | null)?.probabilities;
  if (!Array.isArray(list) || list.length !== count) return undefined;
  if (!list.every((p) => typeof p === "number" && p >= 0 && p <= 1)) return undefined;
  return list as number[];
}
