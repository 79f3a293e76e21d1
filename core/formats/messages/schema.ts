/**
 * TypeBox schema of the Messages request body (spec "Messages request", "Limits"; the
 * peer's Messages request extras). What `@anthropic-ai/sdk` sends plus the gateway's routing fields. Ranges with a meaning every format
 * shares come from ../shared/ranges.ts, so each format applies the same ones. Size limits live here so the edge
 * rejects them with a 400 before decode runs; unknown top-level fields are accepted and decode
 * records them as warnings.
 */
import { Type, type Static } from "@sinclair/typebox";
import { CacheControlSchema, Nullable, Open, ReasoningEffortSchema, StopConditionsSchema, StringEnum } from "../shared/schema.ts";
import * as R from "../shared/ranges.ts";
import { MessageParamSchema, TextBlockSchema } from "./schema-blocks.ts";

/** A client function tool: `{name, input_schema, description?, cache_control?, strict?, defer_loading?}`. */
export const ClientToolSchema = Type.Object(
  {
    name: Type.String({ minLength: 1 }),
    input_schema: Type.Record(Type.String(), Type.Unknown()),
    description: Type.Optional(Type.String()),
    type: Type.Optional(Nullable(Type.Literal("custom"))),
    cache_control: Type.Optional(Nullable(CacheControlSchema)),
    strict: Type.Optional(Type.Boolean()),
    defer_loading: Type.Optional(Type.Boolean()),
  },
  Open,
);

/**
 * A typed tool: a gateway server tool (`service:*` with `parameters`) or one of Anthropic's own typed
 * tools (`web_search_20250305`, `bash_20250124`, …), which only an Anthropic upstream understands.
 */
export const TypedToolSchema = Type.Object(
  { type: Type.String({ minLength: 1 }), parameters: Type.Optional(Type.Record(Type.String(), Type.Unknown())) },
  Open,
);

/** `tool_choice`: `{type: auto|any|tool|none, name?, disable_parallel_tool_use?}`; decode requires `name` for `tool`. */
export const MessagesToolChoiceSchema = Type.Object({
  type: StringEnum(["auto", "any", "tool", "none"]),
  name: Type.Optional(Type.String()),
  disable_parallel_tool_use: Type.Optional(Type.Boolean()),
});

const display = Type.Optional(Nullable(StringEnum(["summarized", "omitted"])));

/** `thinking`: enabled with a budget, disabled, or adaptive. */
export const ThinkingConfigSchema = Type.Union([
  Type.Object({ type: Type.Literal("enabled"), budget_tokens: R.ReasoningTokens(), display }),
  Type.Object({ type: Type.Literal("disabled") }),
  Type.Object({ type: Type.Literal("adaptive"), display }),
]);

/** `output_config` (spec "output configuration"): `effort` and a structured output format. */
export const OutputConfigSchema = Type.Object(
  {
    effort: Type.Optional(Nullable(ReasoningEffortSchema)),
    format: Type.Optional(
      Nullable(
        Type.Object(
          {
            type: Type.Literal("json_schema"),
            schema: Type.Record(Type.String(), Type.Unknown()),
            name: Type.Optional(Type.String()),
          },
          Open,
        ),
      ),
    ),
  },
  Open,
);

/** One fallback entry: only `model` is accepted (spec). */
export const FallbackSchema = Type.Object({ model: Type.String({ minLength: 1, maxLength: R.MODEL_ID_MAX_LENGTH }) }, { additionalProperties: false });

/**
 * Fields Anthropic understands that the gateway does not model; kept for a native Anthropic upstream
 * (passthrough fidelity) and reported as dropped by other upstreams.
 */
export const ANTHROPIC_ONLY_FIELDS = [
  "container",
  "context_management",
  "mcp_servers",
  "inference_geo",
  "diagnostics",
  "service_tier",
] as const;

/** The request body of `POST /messages`. */
export const MessagesRequestSchema = Type.Object(
  {
    model: Type.Optional(R.ModelId()),
    max_tokens: Type.Optional(R.MaxOutputTokens()),
    messages: Type.Array(MessageParamSchema),
    system: Type.Optional(Type.Union([Type.String(), Type.Array(TextBlockSchema)])),
    cache_control: Type.Optional(Nullable(CacheControlSchema)),
    fallbacks: Type.Optional(Type.Array(FallbackSchema, { maxItems: 3 })),
    models: Type.Optional(R.ModelIds()),
    output_config: Type.Optional(Nullable(OutputConfigSchema)),
    plugins: Type.Optional(Type.Array(Type.Object({ id: Type.String(), enabled: Type.Optional(Type.Boolean()) }, Open))),
    provider: Type.Optional(Nullable(Type.Record(Type.String(), Type.Unknown()))),
    route: Type.Optional(Nullable(StringEnum(["fallback", "sort"]))),
    session_id: Type.Optional(Type.String({ maxLength: 256 })),
    speed: Type.Optional(Nullable(StringEnum(["fast", "standard"]))),
    stop_server_tools_when: Type.Optional(StopConditionsSchema),
    trace: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    user: Type.Optional(Type.String({ maxLength: 256 })),
    tools: Type.Optional(R.Tools(Type.Union([ClientToolSchema, TypedToolSchema]))),
    tool_choice: Type.Optional(MessagesToolChoiceSchema),
    thinking: Type.Optional(ThinkingConfigSchema),
    stop_sequences: Type.Optional(R.StopSequences()),
    stream: Type.Optional(Type.Boolean()),
    temperature: Type.Optional(R.Temperature()),
    top_p: Type.Optional(R.TopP()),
    top_k: Type.Optional(R.TopK()),
    // Anthropic's metadata holds `user_id`; other keys are warned about and dropped, and capped like metadata anywhere.
    metadata: Type.Optional(
      Type.Object(
        { user_id: Type.Optional(Nullable(Type.String({ maxLength: 256 }))) },
        { additionalProperties: Type.String({ maxLength: R.METADATA_LIMITS.valueLength }), maxProperties: R.METADATA_LIMITS.pairs },
      ),
    ),
    debug: Type.Optional(Type.Object({ echo_upstream_body: Type.Optional(Type.Boolean()) })),
    // Anthropic-only fields: shape is Anthropic's business; they are only forwarded to an Anthropic upstream.
    container: Type.Optional(Type.Unknown()),
    context_management: Type.Optional(Type.Unknown()),
    mcp_servers: Type.Optional(Type.Unknown()),
    inference_geo: Type.Optional(Type.Unknown()),
    diagnostics: Type.Optional(Type.Unknown()),
    service_tier: Type.Optional(StringEnum(["auto", "standard_only"])),
  },
  Open,
);

/** A schema-valid Messages request body. */
export type MessagesRequest = Static<typeof MessagesRequestSchema>;

/** Top-level fields decode understands; anything else becomes an `unknown_field` warning. */
export const KNOWN_FIELDS: ReadonlySet<string> = new Set(Object.keys(MessagesRequestSchema.properties));
