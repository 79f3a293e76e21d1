/** Adapter options of `gemini` (provider config `options`), validated at start-up against `optionsSchema`. */
import { Type, type Static } from "@sinclair/typebox";

/** TypeBox schema of the adapter options. */
export const geminiOptionsSchema = Type.Object(
  {
    /**
     * How reasoning settings are sent: `budget` (`thinkingBudget`, Gemini 2.5), `level` (`thinkingLevel`, Gemini 3),
     * or `auto` (by model name).
     */
    thinking_style: Type.Optional(Type.Union([Type.Literal("auto"), Type.Literal("budget"), Type.Literal("level")])),
    /**
     * Where JSON schemas go: `json_schema` (`parametersJsonSchema` / `responseJsonSchema`, full JSON Schema) or
     * `openapi` (`parameters` / `responseSchema`, the older OpenAPI subset) for servers that only know those.
     */
    schema_mode: Type.Optional(Type.Union([Type.Literal("json_schema"), Type.Literal("openapi")])),
    /**
     * Gemini 3 rejects replayed function calls without a thought signature; Google documents a sentinel for
     * histories it did not produce. `auto` sends it for Gemini 3 and later models.
     */
    signature_placeholder: Type.Optional(Type.Union([Type.Literal("auto"), Type.Literal("always"), Type.Literal("never")])),
  },
  { additionalProperties: false },
);

/** The validated options. */
export type GeminiOptions = Static<typeof geminiOptionsSchema>;

/** Gemini 3 and later use thinking levels and validate thought signatures. */
function isGemini3OrLater(model: string): boolean {
  const match = /gemini-(\d+)/.exec(model);
  return match !== null && Number(match[1]) >= 3;
}

/** Resolved options for one call. */
export interface ResolvedGeminiOptions {
  thinkingStyle: "budget" | "level";
  schemaMode: "json_schema" | "openapi";
  signaturePlaceholder: boolean;
}

/** Reads the options from a target's already-validated record, resolving `auto` by the upstream model name. */
export function readGeminiOptions(options: Record<string, unknown>, upstreamModel: string): ResolvedGeminiOptions {
  const modern = isGemini3OrLater(upstreamModel);
  const style = options.thinking_style;
  const placeholder = options.signature_placeholder;
  return {
    thinkingStyle: style === "budget" || style === "level" ? style : modern ? "level" : "budget",
    schemaMode: options.schema_mode === "openapi" ? "openapi" : "json_schema",
    signaturePlaceholder: placeholder === "always" ? true : placeholder === "never" ? false : modern,
  };
}
