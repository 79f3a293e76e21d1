/**
 * The alignment plugin's settings (spec "alignment plugin"): the request's own entry is checked field
 * by field — `rules` (1–128, each 1–200 characters, no line break), `mode` (enforce | audit), `instruct`,
 * `max_retries` (0–3), `threshold` in (0, 1] — and nothing else: the operator's keys (`evaluator_model`, `admit`…)
 * are refused in a request, so a caller can neither pick the evaluator nor admit itself. Each a 400 naming the field.
 */
import type { CanonicalRequest } from "../../core/sdk/index.ts";
import type { PluginContext } from "../../core/sdk/index.ts";

export interface AlignmentSettings {
  rules: string[];
  mode: "enforce" | "audit";
  instruct: boolean;
  maxRetries: number;
  threshold: number;
  evaluatorModel: string;
  evaluatorTimeoutMs: number;
}

/** Keys a request's entry may carry besides `id` and `enabled`. */
const REQUEST_KEYS = new Set(["rules", "mode", "instruct", "max_retries", "threshold"]);
export const DEFAULT_EVALUATOR_TIMEOUT_MS = 15_000;

export function settingsOf(ctx: PluginContext): AlignmentSettings {
  const invalid = (field: string, message: string) => ctx.helpers.error("invalid_request", `${field}: ${message}`, { metadata: { param: field } });
  const entries = ctx.request.plugins.map((p, i) => [p, i] as const).filter(([p]) => p.id === "alignment");
  if (entries.length > 1) throw invalid(`plugins[${entries[1]![1]}]`, "the alignment plugin may be given once");
  const [entry, index] = entries[0] ?? [undefined, -1];
  const at = (key: string) => (index >= 0 ? `plugins[${index}].${key}` : `plugins.alignment.${key}`);
  if (entry) {
    for (const key of Object.keys(entry)) {
      if (key !== "id" && key !== "enabled" && !REQUEST_KEYS.has(key)) throw invalid(at(key), 'unknown option of plugin "alignment"');
    }
  }
  const o = ctx.options;
  const rules = o.rules;
  if (!Array.isArray(rules) || rules.length < 1 || rules.length > 128) throw invalid(at("rules"), "1 to 128 rules are required");
  rules.forEach((rule, i) => {
    if (typeof rule !== "string" || rule.length < 1 || rule.length > 200) throw invalid(`${at("rules")}[${i}]`, "each rule is 1 to 200 characters");
    if (/[\n\r\u2028\u2029]/.test(rule)) throw invalid(`${at("rules")}[${i}]`, "a rule may not contain a line break");
  });
  const mode = o.mode ?? "enforce";
  if (mode !== "enforce" && mode !== "audit") throw invalid(at("mode"), "enforce or audit");
  const instruct = o.instruct ?? true;
  if (typeof instruct !== "boolean") throw invalid(at("instruct"), "a boolean");
  const maxRetries = o.max_retries ?? 1;
  if (typeof maxRetries !== "number" || !Number.isInteger(maxRetries) || maxRetries < 0 || maxRetries > 3) throw invalid(at("max_retries"), "an integer from 0 to 3");
  const threshold = o.threshold ?? 0.7;
  if (typeof threshold !== "number" || !(threshold > 0 && threshold <= 1)) throw invalid(at("threshold"), "a number in (0, 1]");
  if (zdr(ctx.request)) throw invalid("provider.zdr", "the alignment plugin sends each reply to an evaluator model, which zero data retention forbids");
  const evaluatorModel = o.evaluator_model;
  if (typeof evaluatorModel !== "string" || evaluatorModel === "") {
    throw invalid("plugins", "the alignment plugin needs an evaluator model, and this gateway has none configured (plugins.alignment.evaluator_model)");
  }
  const timeout = typeof o.evaluator_timeout_ms === "number" ? o.evaluator_timeout_ms : DEFAULT_EVALUATOR_TIMEOUT_MS;
  return { rules: rules as string[], mode, instruct, maxRetries, threshold, evaluatorModel, evaluatorTimeoutMs: timeout };
}

function zdr(request: CanonicalRequest): boolean {
  return (request.provider as { zdr?: unknown } | undefined)?.zdr === true;
}
