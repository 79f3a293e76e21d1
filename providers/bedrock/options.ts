/** Adapter options of `bedrock` (provider config `options`), validated at start-up against `optionsSchema`. */
import { Type, type Static } from "@sinclair/typebox";
import type { StructuredOutput } from "./models.ts";

export const bedrockOptionsSchema = Type.Object(
  {
    /**
     * `max_tokens` sent with a thinking budget when the client gave none (Claude's budget must stay below it); a
     * request without thinking sends none and lets the model's own default apply.
     */
    default_max_tokens: Type.Optional(Type.Integer({ minimum: 1 })),
    /**
     * How a JSON-schema answer is asked of this provider's models, when the built-in guess from the model id
     * (README "Cloud providers") is wrong for them: `native` (Converse `outputConfig`), `tool` (a forced tool whose
     * input is the answer) or `none` (not sent, with a warning).
     */
    structured_output: Type.Optional(Type.Union([Type.Literal("native"), Type.Literal("tool"), Type.Literal("none")])),
  },
  { additionalProperties: false },
);

export type BedrockOptions = Static<typeof bedrockOptionsSchema>;

export interface ReadOptions {
  defaultMaxTokens: number;
  structuredOutput: StructuredOutput | undefined;
}

/** Reads the already-validated options record, with defaults. */
export function readBedrockOptions(options: Record<string, unknown>): ReadOptions {
  const structured = options.structured_output;
  return {
    defaultMaxTokens: typeof options.default_max_tokens === "number" ? options.default_max_tokens : 4096,
    structuredOutput: structured === "native" || structured === "tool" || structured === "none" ? structured : undefined,
  };
}
