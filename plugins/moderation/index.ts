/**
 * moderation (`{id: "moderation"}`): the request's user input is classified before any model sees it,
 * and flagged input is refused with a 403 whose `error.metadata` is `{reasons, flagged_input (at most 100
 * characters, elided in the middle), provider_name, model_slug}`. The engine is the operator's choice, in the
 * config's `plugins.moderation` (engines.ts): the local lexicon by default, an OpenAI-compatible `/moderations`
 * endpoint, or an LLM judge. A request's entry takes no options.
 */
import { Type } from "@sinclair/typebox";
import type { CanonicalRequest } from "../../core/sdk/index.ts";
import { definePlugin } from "../../core/sdk/index.ts";
import type { PluginContext } from "../../core/sdk/index.ts";
import { classify, type EngineOptions } from "./engines.ts";

const OptionsSchema = Type.Object(
  {
    engine: Type.Optional(Type.Union([Type.Literal("local"), Type.Literal("openai"), Type.Literal("llm")])),
    base_url: Type.Optional(Type.String({ minLength: 1 })),
    api_key: Type.Optional(Type.Union([Type.String(), Type.Object({ env: Type.String({ minLength: 1 }) }, { additionalProperties: false })])),
    model: Type.Optional(Type.String({ minLength: 1 })),
    timeout_ms: Type.Optional(Type.Integer({ minimum: 100, maximum: 600_000 })),
    on_error: Type.Optional(Type.Union([Type.Literal("block"), Type.Literal("allow")])),
  },
  { additionalProperties: false },
);

/** Characters of the flagged input shown in the error (reference: at most 100, elided in the middle). */
const SHOWN = 100;

export function elide(text: string, max = SHOWN): string {
  if (text.length <= max) return text;
  const half = Math.floor((max - 1) / 2);
  return `${text.slice(0, half)}…${text.slice(text.length - (max - 1 - half))}`;
}

/** The text of each user message, in order (the input moderation reads). */
function userInputs(request: CanonicalRequest): string[] {
  return request.messages
    .filter((m) => m.role === "user")
    .map((m) => m.parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("\n"))
    .filter((text) => text.trim() !== "");
}

function checkEntry(ctx: PluginContext): void {
  const index = ctx.request.plugins.findIndex((p) => p.id === "moderation");
  const entry = ctx.request.plugins[index];
  if (!entry) return;
  for (const key of Object.keys(entry)) {
    if (key === "id" || key === "enabled") continue;
    const param = `plugins[${index}].${key}`;
    throw ctx.helpers.error("invalid_request", `${param}: the moderation plugin takes no options in a request (its engine is the operator's)`, { metadata: { param } });
  }
}

export default definePlugin({
  id: "moderation",
  description: "Refuses flagged input with a 403 (local lexicon by default; an OpenAI-compatible /moderations endpoint or an LLM judge when configured).",
  // Before the routers and every turn plugin: nothing runs for input that is refused.
  priority: -300,
  optionsSchema: OptionsSchema,
  hooks: {
    async pre(ctx) {
      checkEntry(ctx);
      const options = ctx.options as EngineOptions & { on_error?: "block" | "allow" };
      const inputs = userInputs(ctx.request);
      if (inputs.length === 0) return;
      let verdict;
      try {
        verdict = await classify(ctx, options, inputs);
      } catch (error) {
        ctx.report({ summary: "moderation engine failed", data: { flagged: false, engine: options.engine ?? "local", error: error instanceof Error ? error.message : String(error) } });
        if (options.on_error === "allow") return;
        throw ctx.helpers.error("provider_unavailable", "Moderation is unavailable: the input could not be checked", { status: 503, retryable: true, retryAfter: 1 });
      }
      const flagged = verdict.results.findIndex((categories) => categories.length > 0);
      const reasons = flagged >= 0 ? verdict.results[flagged]! : [];
      ctx.report({
        summary: flagged >= 0 ? `input flagged: ${reasons.join(", ")}` : "input not flagged",
        data: { flagged: flagged >= 0, engine: options.engine ?? "local", provider_name: verdict.provider, model_slug: verdict.model, ...(flagged >= 0 ? { reasons } : {}) },
      });
      if (flagged < 0) return;
      throw ctx.helpers.error("permission_denied", `Input flagged by moderation: ${reasons.join(", ")}`, {
        status: 403,
        metadata: { reasons, flagged_input: elide(inputs[flagged]!), provider_name: verdict.provider, model_slug: verdict.model },
      });
    },
  },
});
