/**
 * Bodies of `POST /guardrails` and `PATCH /guardrails/{id}` (the peer SDK's Create/UpdateGuardrailRequest),
 * plus our `apply_to`. Shapes are checked by the schema; what a schema cannot say (a pattern that does not compile
 * or would cost too much to scan, a builtin given twice) by `guardrailFields`, each a 400 naming the field.
 */
import { t } from "elysia";
import { errors } from "../errors.ts";
import { BUILTIN_SLUGS } from "../guardrails/detectors/builtins.ts";
import { compileNewPattern, DEFAULT_PATTERN_MAX_INSTRUCTIONS, MAX_PATTERN_LENGTH } from "../guardrails/pattern/caps.ts";
import { PatternError } from "../regex/index.ts";
import { checkStorableText } from "../store/text.ts";
import type { BuiltinFilter, ContentFilter, GuardrailPatch } from "../store/types.ts";

const Action = t.Union([t.Literal("block"), t.Literal("redact"), t.Literal("flag")]);
const Names = t.Union([t.Array(t.String({ minLength: 1, maxLength: 1024 }), { maxItems: 1024 }), t.Null()]);
const Flag = t.Union([t.Boolean(), t.Null()]);

const ContentFilterSchema = t.Object(
  {
    pattern: t.String({ minLength: 1, description: `A regular expression (RE2 syntax: no lookaround, no backreferences), at most ${MAX_PATTERN_LENGTH} characters` }),
    action: Action,
    label: t.Optional(t.Union([t.String({ minLength: 1, maxLength: 64 }), t.Null()])),
  },
  { additionalProperties: false },
);

const BuiltinSchema = t.Object(
  {
    slug: t.String({ description: `One of ${BUILTIN_SLUGS.join(", ")}` }),
    action: Action,
    scan_scope: t.Optional(t.Union([t.Literal("user_only"), t.Literal("all_messages")])),
    label: t.Optional(t.String({ minLength: 1, maxLength: 64 })),
  },
  { additionalProperties: false },
);

const common = {
  description: t.Optional(t.Union([t.String({ maxLength: 1000 }), t.Null()])),
  limit_usd: t.Optional(t.Union([t.Number({ minimum: 0 }), t.Null()])),
  reset_interval: t.Optional(t.Union([t.Literal("daily"), t.Literal("weekly"), t.Literal("monthly"), t.Null()])),
  include_byok_in_budgets: t.Optional(t.Boolean()),
  allowed_models: t.Optional(Names),
  ignored_models: t.Optional(Names),
  allowed_providers: t.Optional(Names),
  ignored_providers: t.Optional(Names),
  allowed_data_regions: t.Optional(t.Union([t.Array(t.String({ maxLength: 32 }), { maxItems: 16 }), t.Null()])),
  enforce_zdr: t.Optional(Flag),
  enforce_zdr_anthropic: t.Optional(Flag),
  enforce_zdr_openai: t.Optional(Flag),
  enforce_zdr_google: t.Optional(Flag),
  enforce_zdr_xai: t.Optional(Flag),
  enforce_zdr_other: t.Optional(Flag),
  enable_free_model_publication: t.Optional(Flag),
  enable_free_model_training: t.Optional(Flag),
  enable_paid_model_training: t.Optional(Flag),
  content_filters: t.Optional(t.Union([t.Array(ContentFilterSchema, { maxItems: 200 }), t.Null()])),
  content_filter_builtins: t.Optional(t.Union([t.Array(BuiltinSchema, { maxItems: 32 }), t.Null()])),
  apply_to: t.Optional(t.Union([t.Literal("input"), t.Literal("output"), t.Literal("both")], { description: "Which side content filters read (default input)" })),
};

export const CreateGuardrailBody = t.Object(
  { name: t.String({ minLength: 1, maxLength: 200 }), workspace_id: t.Optional(t.String()), ...common },
  { additionalProperties: false },
);

export const PatchGuardrailBody = t.Object({ name: t.Optional(t.String({ minLength: 1, maxLength: 200 })), ...common }, { additionalProperties: false });

/** The peer's fields stored as sent and returned (`options`); README "Guardrails" says which of them act. */
export const OPTION_FIELDS = [
  "include_byok_in_budgets",
  "allowed_data_regions",
  "enforce_zdr",
  "enforce_zdr_anthropic",
  "enforce_zdr_openai",
  "enforce_zdr_google",
  "enforce_zdr_xai",
  "enforce_zdr_other",
  "enable_free_model_publication",
  "enable_free_model_training",
  "enable_paid_model_training",
] as const;

type Body = Partial<typeof PatchGuardrailBody.static>;

/**
 * The record fields a body sets (undefined: left as it is), with every pattern compiled once to refuse bad ones and
 * those whose program has more than `patternMaxInstructions` instructions (README "Caps on heavy work").
 */
export function guardrailFields(body: Body, previousOptions: Record<string, unknown> = {}, patternMaxInstructions = DEFAULT_PATTERN_MAX_INSTRUCTIONS): GuardrailPatch {
  checkStorableText(body.name, "name");
  checkStorableText(body.description, "description");
  const patch: GuardrailPatch = {};
  if (body.name !== undefined) patch.name = body.name;
  if (body.description !== undefined) patch.description = body.description;
  if (body.limit_usd !== undefined) patch.limitUsd = body.limit_usd;
  if (body.reset_interval !== undefined) patch.resetInterval = body.reset_interval;
  if (body.allowed_models !== undefined) patch.allowedModels = body.allowed_models;
  if (body.ignored_models !== undefined) patch.ignoredModels = body.ignored_models;
  if (body.allowed_providers !== undefined) patch.allowedProviders = body.allowed_providers;
  if (body.ignored_providers !== undefined) patch.ignoredProviders = body.ignored_providers;
  if (body.content_filters !== undefined) patch.contentFilters = contentFilters(body.content_filters ?? [], patternMaxInstructions);
  if (body.content_filter_builtins !== undefined) patch.contentFilterBuiltins = builtins(body.content_filter_builtins ?? []);
  if (body.apply_to !== undefined) patch.applyTo = body.apply_to;
  const options = { ...previousOptions };
  let changed = false;
  for (const field of OPTION_FIELDS) {
    if (body[field] === undefined) continue;
    options[field] = body[field];
    changed = true;
  }
  if (changed) patch.options = options;
  return patch;
}

function contentFilters(entries: ReadonlyArray<{ pattern: string; action: ContentFilter["action"]; label?: string | null }>, maxInstructions: number): ContentFilter[] {
  return entries.map((entry, i) => {
    const param = `content_filters[${i}].pattern`;
    checkStorableText(entry.pattern, param);
    if (entry.pattern.length > MAX_PATTERN_LENGTH) throw errors.invalid(`${param}: longer than ${MAX_PATTERN_LENGTH} characters`, { param });
    try {
      compileNewPattern(entry.pattern, maxInstructions);
    } catch (error) {
      if (error instanceof PatternError) throw errors.invalid(`${param} ${quoted(entry.pattern)}: ${error.message}`, { param });
      throw error;
    }
    checkStorableText(entry.label, `content_filters[${i}].label`);
    return { pattern: entry.pattern, action: entry.action, ...(entry.label ? { label: entry.label } : {}) };
  });
}

/** The pattern as a 400 names it: JSON-quoted, cut at 80 characters. */
function quoted(pattern: string): string {
  return JSON.stringify(pattern.length > 80 ? `${pattern.slice(0, 80)}…` : pattern);
}

function builtins(entries: ReadonlyArray<{ slug: string; action: BuiltinFilter["action"]; scan_scope?: "user_only" | "all_messages"; label?: string }>): BuiltinFilter[] {
  const seen = new Set<string>();
  return entries.map((entry, i) => {
    const param = `content_filter_builtins[${i}].slug`;
    if (!BUILTIN_SLUGS.includes(entry.slug)) throw errors.invalid(`${param}: unknown builtin "${entry.slug}" (one of ${BUILTIN_SLUGS.join(", ")})`, { param });
    if (seen.has(entry.slug)) throw errors.invalid(`${param}: "${entry.slug}" is listed twice`, { param });
    seen.add(entry.slug);
    checkStorableText(entry.label, `content_filter_builtins[${i}].label`);
    return { slug: entry.slug, action: entry.action, ...(entry.scan_scope ? { scanScope: entry.scan_scope } : {}), ...(entry.label ? { label: entry.label } : {}) };
  });
}
