/** Schema building blocks every wire format shares (spec "Responses request", "Messages request", "Chat-completions request"). */
import { Type, type TLiteral, type TSchema, type TUnion } from "@sinclair/typebox";

type Literals<T extends readonly string[]> = { -readonly [K in keyof T]: TLiteral<T[K]> };

/** A union of string literals whose static type stays the literal union (so decoders need no casts). */
export function StringEnum<const T extends readonly [string, ...string[]]>(values: T): TUnion<Literals<T>> {
  return Type.Union(values.map((value) => Type.Literal(value))) as unknown as TUnion<Literals<T>>;
}

/** `T | null`, the way OpenAI-style APIs mark most optional fields. */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/**
 * Object options for wire objects that stay open (extra keys allowed): clients echo back fields of earlier results
 * that are newer than these schemas, and decode warns about the ones it drops.
 */
export const Open = { additionalProperties: true } as const;

/** Cache breakpoint (spec `cache_control`): `type` only `ephemeral`, optional `ttl`. */
export const CacheControlSchema = Type.Object({ type: Type.Literal("ephemeral"), ttl: Type.Optional(Type.String()) });

/** Image `detail` levels (chat `image_url.detail`, Responses `input_image.detail`). */
export const ImageDetailSchema = StringEnum(["auto", "low", "high"]);

/** Reasoning effort values (spec `reasoning_effort`). */
export const REASONING_EFFORTS = ["max", "xhigh", "high", "medium", "low", "minimal", "none"] as const;

/** One reasoning effort (chat `reasoning_effort` / `reasoning.effort`, Responses `reasoning.effort`, Messages `output_config.effort`). */
export const ReasoningEffortSchema = StringEnum(REASONING_EFFORTS);

/** The five `stop_server_tools_when` conditions. */
export const StopConditionSchema = Type.Union([
  Type.Object({ type: Type.Literal("step_count_is"), step_count: Type.Integer({ minimum: 1 }) }),
  Type.Object({ type: Type.Literal("max_cost"), max_cost_in_dollars: Type.Number({ minimum: 0 }) }),
  Type.Object({ type: Type.Literal("max_tokens_used"), max_tokens: Type.Integer({ minimum: 1 }) }),
  Type.Object({ type: Type.Literal("has_tool_call"), tool_name: Type.String({ minLength: 1 }) }),
  Type.Object({ type: Type.Literal("finish_reason_is"), reason: Type.String({ minLength: 1 }) }),
]);

/** `stop_server_tools_when`: one or more conditions. */
export const StopConditionsSchema = Type.Array(StopConditionSchema, { minItems: 1 });
