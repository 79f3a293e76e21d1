/**
 * The `embeddings` section of the config file (README "Embeddings and rerank"): how many inputs one request may
 * carry and how many tokens each input may have. Both are checked before anything is reserved or called.
 */
import { Type, type Static } from "@sinclair/typebox";
import { Defaulted, deepFreeze, resolveDefaults } from "./defaults.ts";

export const EmbeddingsFileSchema = Type.Object(
  {
    /** Inputs per request (OpenAI's own limit is 2,048). */
    max_inputs: Defaulted(Type.Integer({ minimum: 1, maximum: 1_000_000 }), 2_048),
    /** Tokens per input (o200k count for texts, the array's length for token ids). */
    max_input_tokens: Defaulted(Type.Integer({ minimum: 1, maximum: 10_000_000 }), 8_192),
  },
  { additionalProperties: false },
);

/** Parsed `embeddings` section. */
export interface EmbeddingsConfig {
  maxInputs: number;
  maxInputTokens: number;
}

export function toEmbeddingsConfig(section: Static<typeof EmbeddingsFileSchema> | undefined): EmbeddingsConfig {
  const e = resolveDefaults(EmbeddingsFileSchema, section);
  return { maxInputs: e.max_inputs, maxInputTokens: e.max_input_tokens };
}

export const DEFAULT_EMBEDDINGS: EmbeddingsConfig = deepFreeze(toEmbeddingsConfig(undefined));

/** The embeddings settings of a config (tests may build configs without the section). */
export function embeddingsOf(config: { embeddings?: EmbeddingsConfig }): EmbeddingsConfig {
  return config.embeddings ?? DEFAULT_EMBEDDINGS;
}
