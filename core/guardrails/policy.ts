/**
 * The effective policy of a request: every guardrail that applies to its key (assigned to the key, or to the key's
 * workspace) combined as the peer documents it: model and provider allow-lists intersect, ignore-lists add up,
 * content filters are unioned (and at scan time block beats redact beats flag), each budget stands on its own.
 * Compiled once per guardrail version (patterns are cached), cached per key by the service.
 */
import type { AppliedGuardrail, GuardrailAction, GuardrailRecord, LimitReset, ScanScope } from "../store/types.ts";
import { BUILTIN_DETECTORS } from "./detectors/builtins.ts";
import { customDetector } from "./detectors/custom.ts";
import type { Detector } from "./detectors/types.ts";

/** How a pipeline entry names the scope of a guardrail (spec: `api-key`; ours adds `workspace`). */
export type GuardrailScope = "api-key" | "workspace";

export interface GuardrailRef {
  id: string;
  name: string;
  scope: GuardrailScope;
}

/** One content filter of one guardrail, ready to scan. */
export interface Filter {
  guardrail: GuardrailRef;
  detector: Detector;
  action: GuardrailAction;
  /** Which messages it reads on the way in (prompt injection: `user_only` or `all_messages`). */
  scanScope: ScanScope;
  input: boolean;
  output: boolean;
  /** The operator's label (custom filters; a builtin may carry one too). */
  label?: string;
}

export interface Budget {
  guardrail: GuardrailRef;
  limitUsd: number;
  reset: LimitReset | null;
}

export interface Policy {
  guardrails: readonly GuardrailRef[];
  /** Each guardrail's allow-list of models (a model must be in every one); empty: no allow-list. */
  allowedModels: ReadonlyArray<{ guardrail: GuardrailRef; patterns: readonly string[] }>;
  ignoredModels: ReadonlyArray<{ guardrail: GuardrailRef; patterns: readonly string[] }>;
  allowedProviders: ReadonlyArray<{ guardrail: GuardrailRef; providers: readonly string[] }>;
  ignoredProviders: ReadonlyArray<{ guardrail: GuardrailRef; providers: readonly string[] }>;
  /** Model families whose requests must go to zero-data-retention endpoints (`enforce_zdr_*`, OR'ed). */
  zdrFamilies: ReadonlySet<string>;
  filters: readonly Filter[];
  budgets: readonly Budget[];
  /** Whether any filter reads the answer (so the stage has work on the way out). */
  checksOutput: boolean;
}

export function compilePolicy(applied: readonly AppliedGuardrail[]): Policy {
  const policy = {
    guardrails: [] as GuardrailRef[],
    allowedModels: [] as Array<{ guardrail: GuardrailRef; patterns: readonly string[] }>,
    ignoredModels: [] as Array<{ guardrail: GuardrailRef; patterns: readonly string[] }>,
    allowedProviders: [] as Array<{ guardrail: GuardrailRef; providers: readonly string[] }>,
    ignoredProviders: [] as Array<{ guardrail: GuardrailRef; providers: readonly string[] }>,
    zdrFamilies: new Set<string>(),
    filters: [] as Filter[],
    budgets: [] as Budget[],
    checksOutput: false,
  };
  for (const { record, scope } of applied) {
    const guardrail: GuardrailRef = { id: record.id, name: record.name, scope: scope === "key" ? "api-key" : "workspace" };
    policy.guardrails.push(guardrail);
    if (record.allowedModels) policy.allowedModels.push({ guardrail, patterns: record.allowedModels });
    if (record.ignoredModels?.length) policy.ignoredModels.push({ guardrail, patterns: record.ignoredModels });
    if (record.allowedProviders) policy.allowedProviders.push({ guardrail, providers: record.allowedProviders });
    if (record.ignoredProviders?.length) policy.ignoredProviders.push({ guardrail, providers: record.ignoredProviders });
    for (const family of zdrFamiliesOf(record)) policy.zdrFamilies.add(family);
    if (record.limitUsd !== null) policy.budgets.push({ guardrail, limitUsd: record.limitUsd, reset: record.resetInterval });
    const input = record.applyTo !== "output";
    const output = record.applyTo !== "input";
    record.contentFilters.forEach((filter, index) => {
      const label = filter.label ?? undefined;
      policy.filters.push({ guardrail, detector: cachedCustom(filter.pattern, label, index), action: filter.action, scanScope: "all_messages", input, output, ...(label ? { label } : {}) });
    });
    for (const builtin of record.contentFilterBuiltins) {
      const detector = BUILTIN_DETECTORS.get(builtin.slug);
      if (!detector) continue; // refused at write time; a slug retired later is skipped rather than failing requests
      policy.filters.push({ guardrail, detector, action: builtin.action, scanScope: builtin.scanScope ?? "all_messages", input, output, ...(builtin.label ? { label: builtin.label } : {}) });
    }
    if (output && (record.contentFilters.length > 0 || record.contentFilterBuiltins.length > 0)) policy.checksOutput = true;
  }
  return policy;
}

/** `enforce_zdr_<family>` flags, with the deprecated `enforce_zdr` standing in for those not given (reference SDK). */
const FAMILIES = ["anthropic", "openai", "google", "xai", "other"] as const;
function zdrFamiliesOf(record: GuardrailRecord): string[] {
  const all = record.options.enforce_zdr === true;
  return FAMILIES.filter((f) => {
    const own = record.options[`enforce_zdr_${f}`];
    return own === true || (own === undefined && all);
  });
}

/** The family a model id belongs to for `enforce_zdr_*`: by its author prefix. */
export function zdrFamilyOf(model: string): string {
  const author = model.split("/")[0]?.toLowerCase() ?? "";
  if (author === "anthropic") return "anthropic";
  if (author === "openai") return "openai";
  if (author === "google") return "google";
  if (author === "x-ai" || author === "xai") return "xai";
  return "other";
}

/**
 * Compiled operator patterns, shared across policies (a policy is rebuilt per key and cache refresh; compiling a
 * 100k-character pattern each time would not be). Bounded: the oldest entries go first.
 */
const compiled = new Map<string, Detector>();
function cachedCustom(pattern: string, label: string | undefined, index: number): Detector {
  const key = `${index}\u0000${label ?? ""}\u0000${pattern}`;
  let detector = compiled.get(key);
  if (!detector) {
    detector = customDetector(pattern, label, index);
    if (compiled.size >= 2_000) compiled.delete(compiled.keys().next().value!);
    compiled.set(key, detector);
  }
  return detector;
}
