/** Adapter options of `anthropic` (provider config `options`), validated at start-up against `optionsSchema`. */
import { Type, type Static } from "@sinclair/typebox";

/** TypeBox schema of the adapter options. */
export const anthropicOptionsSchema = Type.Object(
  {
    /** Anthropic requires `max_tokens`; sent (with a warning) when the client gave none. */
    default_max_tokens: Type.Optional(Type.Integer({ minimum: 1 })),
    /** The `anthropic-version` header. */
    anthropic_version: Type.Optional(Type.String({ minLength: 1 })),
    /** `anthropic-beta` flags always sent (merged with those an Anthropic client sent). */
    beta: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
  },
  { additionalProperties: false },
);

/** The validated options. */
export type AnthropicOptions = Static<typeof anthropicOptionsSchema>;

/** Reads the options from a target's already-validated record, falling back to defaults. */
export function readAnthropicOptions(options: Record<string, unknown>): Required<AnthropicOptions> {
  const beta = Array.isArray(options.beta) ? options.beta.filter((b): b is string => typeof b === "string") : [];
  return {
    default_max_tokens: typeof options.default_max_tokens === "number" ? options.default_max_tokens : 4096,
    anthropic_version: typeof options.anthropic_version === "string" ? options.anthropic_version : "2023-06-01",
    beta,
  };
}
