/** Adapter options of `openai` (provider config `options`), validated at start-up against `optionsSchema`. */
import { Type, type Static } from "@sinclair/typebox";

/** TypeBox schema of the adapter options. */
export const openAIOptionsSchema = Type.Object(
  {
    /** Older OpenAI-compatible servers only know `max_tokens`; OpenAI's reasoning models only `max_completion_tokens`. */
    max_tokens_field: Type.Optional(Type.Union([Type.Literal("max_completion_tokens"), Type.Literal("max_tokens")])),
  },
  { additionalProperties: false },
);

/** The validated options. */
export type OpenAIOptions = Static<typeof openAIOptionsSchema>;

/** Reads the options from a target's already-validated record, falling back to defaults. */
export function readOpenAIOptions(options: Record<string, unknown>): Required<OpenAIOptions> {
  return { max_tokens_field: options.max_tokens_field === "max_tokens" ? "max_tokens" : "max_completion_tokens" };
}
