/**
 * One range per canonical meaning, whichever wire format carries it. The three request schemas
 * take these pieces instead of spelling their own bounds, which had drifted apart: Responses accepted `temperature`
 * 12345 and `top_p` -1, Messages `temperature` 12345, and nothing capped `tools`, Messages' `stop_sequences` and
 * `metadata`, or `max_tokens` (the credit reservation multiplies it). The ranges are the spec's chat-completions ones
 * ("Limits") where it has them; README "Request limits" lists them all.
 */
import { Type, type TArray, type TInteger, type TNumber, type TSchema, type TString } from "@sinclair/typebox";

/** Characters of a model id (`model`, each of `models`, Messages `fallbacks[].model`); longer names nothing real. */
export const MODEL_ID_MAX_LENGTH = 256;
/** Entries of `models` (fallback models tried in order). */
export const MAX_MODELS = 32;
/** Output tokens one request may ask for (`max_tokens`, `max_completion_tokens`, `max_output_tokens`). */
export const MAX_OUTPUT_TOKENS = 1_000_000;
/** Stop sequences (chat `stop`, Messages `stop_sequences`). */
export const MAX_STOP_SEQUENCES = 4;
/** Tools of one request, function and server tools together. */
export const MAX_TOOLS = 512;
/** Spec "Limits": metadata pairs, key and value lengths. */
export const METADATA_LIMITS = { pairs: 16, keyLength: 64, valueLength: 512 } as const;

export const ModelId = (): TString => Type.String({ maxLength: MODEL_ID_MAX_LENGTH });
export const ModelIds = (): TArray<TString> => Type.Array(ModelId(), { maxItems: MAX_MODELS });

/** Sampling temperature, 0 to 2 (an upstream with a narrower range gets it as sent). */
export const Temperature = (): TNumber => Type.Number({ minimum: 0, maximum: 2 });
/** Nucleus sampling mass, 0 to 1. */
export const TopP = (): TNumber => Type.Number({ minimum: 0, maximum: 1 });
/** Top-k sampling, 0 (off) or more. */
export const TopK = (): TInteger => Type.Integer({ minimum: 0 });
/** Min-p and top-a sampling, 0 to 1. */
export const UnitInterval = (): TNumber => Type.Number({ minimum: 0, maximum: 1 });
/** Frequency and presence penalties, -2 to 2. */
export const Penalty = (): TNumber => Type.Number({ minimum: -2, maximum: 2 });
/** Repetition penalty, above 0 up to 2. */
export const RepetitionPenalty = (): TNumber => Type.Number({ exclusiveMinimum: 0, maximum: 2 });
/** Log probabilities of the top tokens, 0 to 20. */
export const TopLogprobs = (): TInteger => Type.Integer({ minimum: 0, maximum: 20 });
/** A logit bias, -100 to 100. */
export const LogitBias = (): TNumber => Type.Number({ minimum: -100, maximum: 100 });
/** The output cap: at least one token (a negative one made the credit reservation negative), at most the maximum. */
export const MaxOutputTokens = (): TInteger => Type.Integer({ minimum: 1, maximum: MAX_OUTPUT_TOKENS });
/** A reasoning budget (`reasoning.max_tokens`, Messages `thinking.budget_tokens`): 0 or more, at most the maximum. */
export const ReasoningTokens = (): TInteger => Type.Integer({ minimum: 0, maximum: MAX_OUTPUT_TOKENS });
/** An array of stop sequences. */
export const StopSequences = (): TArray<TString> => Type.Array(Type.String(), { maxItems: MAX_STOP_SEQUENCES });
/** The `tools` array of a request, whatever its entries look like in the format. */
export const Tools = <T extends TSchema>(tool: T): TArray<T> => Type.Array(tool, { maxItems: MAX_TOOLS });

/** `metadata` (spec "Limits"): ≤16 pairs, keys ≤64 characters without brackets, string values ≤512 characters. */
export const Metadata = () =>
  Type.Record(Type.String({ pattern: `^[^\\[\\]]{0,${METADATA_LIMITS.keyLength}}$` }), Type.String({ maxLength: METADATA_LIMITS.valueLength }), {
    maxProperties: METADATA_LIMITS.pairs,
    additionalProperties: false,
  });
