/**
 * TypeBox schema of the Responses request body (spec "Responses request", "Limits").
 * Limits and enums live here so the edge rejects them with a 400 before decode runs (those with a meaning every
 * format shares come from ../shared/ranges.ts, so each format applies the same ones); the semantic rules the schema
 * cannot state well (`previous_response_id`, `store`, deferred tools) are enforced by decode with clear messages.
 * Unknown top-level fields are accepted and decode warns about them.
 */
import { Type, type Static } from "@sinclair/typebox";
import { CacheControlSchema, Nullable, Open, ReasoningEffortSchema, StopConditionsSchema, StringEnum } from "../shared/schema.ts";
import * as R from "../shared/ranges.ts";
import { InputItemSchema } from "./schema-items.ts";

/** Spec "Limits": `max_tool_calls` default and maximum. */
export const MAX_TOOL_CALLS = 30;
/** Spec "Limits": metadata pairs, key and value lengths (the same in every format). */
export const METADATA_LIMITS = R.METADATA_LIMITS;
/** Spec "Limits": `session_id` and `user` lengths. */
export const IDENTIFIER_MAX_LENGTH = 256;

/** Text verbosity values. */
export const VERBOSITIES = ["low", "medium", "high", "xhigh", "max"] as const;
/** `service_tier` values (spec); `fast` is an alias of `priority`. */
export const SERVICE_TIERS = ["auto", "default", "fast", "flex", "priority", "scale", "ultrafast"] as const;
/**
 * `include` values: the spec's five and the rest of what OpenAI's Responses API defines (the AI SDK adds
 * `web_search_call.action.sources` beside its web search tool, and `message.output_text.logprobs` for logprobs).
 * Decode checks them, so an unknown value is a 400 that lists these.
 */
export const INCLUDABLES = [
  "file_search_call.results",
  "message.input_image.image_url",
  "computer_call_output.output.image_url",
  "reasoning.encrypted_content",
  "code_interpreter_call.outputs",
  "web_search_call.action.sources",
  "web_search_call.results",
  "message.output_text.logprobs",
] as const;

const opt = Type.Optional;

/** Function tool (spec "Tools"): client-run, optionally `async` or `defer_loading`. */
export const FunctionToolSchema = Type.Object(
  {
    type: Type.Literal("function"),
    name: Type.String({ minLength: 1 }),
    description: opt(Nullable(Type.String())),
    parameters: opt(Nullable(Type.Record(Type.String(), Type.Unknown()))),
    strict: opt(Nullable(Type.Boolean())),
    async: opt(Type.Boolean()),
    defer_loading: opt(Type.Boolean()),
    cache_control: opt(CacheControlSchema),
  },
  Open,
);

/** Server tool `{type: "service:<name>", parameters}` run by the gateway; `openrouter:<name>` is the same tool. */
export const ServerToolSchema = Type.Object(
  {
    type: Type.String({ pattern: "^(?:service|openrouter):.+" }),
    parameters: opt(Type.Record(Type.String(), Type.Unknown())),
    defer_loading: opt(Type.Boolean()),
  },
  Open,
);

/**
 * Hosted tool kinds of other services: OpenAI's web search (`web_search`, `web_search_preview`, …) runs as
 * `service:web_search`; the others are accepted, then warned about and dropped.
 */
export const OtherToolSchema = Type.Object({ type: Type.String({ pattern: "^(?!function$)(?!service:)(?!openrouter:).+$" }) }, Open);

/** `tool_choice`: a mode string, a named function, `allowed_tools`, or a hosted tool type. */
export const ToolChoiceSchema = Type.Union([
  StringEnum(["none", "auto", "required"]),
  Type.Object({ type: Type.Literal("function"), name: Type.String({ minLength: 1 }) }, Open),
  Type.Object(
    {
      type: Type.Literal("allowed_tools"),
      mode: StringEnum(["auto", "required"]),
      tools: Type.Array(Type.Record(Type.String(), Type.Unknown())),
    },
    Open,
  ),
  Type.Object({ type: Type.String({ pattern: "^(?!function$)(?!allowed_tools$).+$" }) }, Open),
]);

/** `text.format`: text, json_object or json_schema. */
export const TextFormatSchema = Type.Union([
  Type.Object({ type: Type.Literal("text") }, Open),
  Type.Object({ type: Type.Literal("json_object") }, Open),
  Type.Object(
    {
      type: Type.Literal("json_schema"),
      name: Type.String({ minLength: 1 }),
      schema: Type.Record(Type.String(), Type.Unknown()),
      description: opt(Type.String()),
      strict: opt(Nullable(Type.Boolean())),
    },
    Open,
  ),
]);

/** `reasoning` config. */
export const ReasoningConfigSchema = Type.Object(
  {
    effort: opt(Nullable(ReasoningEffortSchema)),
    summary: opt(Nullable(StringEnum(["auto", "concise", "detailed"]))),
    enabled: opt(Nullable(Type.Boolean())),
    max_tokens: opt(Nullable(R.ReasoningTokens())),
    mode: opt(Nullable(StringEnum(["standard", "pro"]))),
    context: opt(Nullable(StringEnum(["auto", "all_turns", "current_turn"]))),
  },
  Open,
);


/** `metadata` (spec "Limits"): ≤16 pairs, keys ≤64 chars without brackets, string values ≤512 chars. */
export const MetadataSchema = R.Metadata();

/** A plugin entry, discriminated by `id`; plugin options are validated by the plugin itself (its optionsSchema). */
export const PluginSchema = Type.Object({ id: Type.String({ minLength: 1 }), enabled: opt(Type.Boolean()) }, Open);

/** The request body of `POST /responses` (spec "Responses request"). */
export const ResponsesRequestSchema = Type.Object(
  {
    model: opt(R.ModelId()),
    models: opt(R.ModelIds()),
    input: opt(Type.Union([Type.String(), Type.Array(InputItemSchema)])),
    instructions: opt(Nullable(Type.String())),
    background: opt(Nullable(Type.Boolean())),
    stream: opt(Nullable(Type.Boolean())),
    store: opt(Nullable(Type.Literal(false, { description: "Only false is accepted: responses are not stored." }))),
    previous_response_id: opt(Type.Unknown({ description: "Not supported; a non-null value is rejected with 400." })),
    max_output_tokens: opt(Nullable(R.MaxOutputTokens())),
    max_tool_calls: opt(Nullable(Type.Integer({ minimum: 0, maximum: MAX_TOOL_CALLS }))),
    stop_server_tools_when: opt(StopConditionsSchema),
    temperature: opt(Nullable(R.Temperature())),
    top_p: opt(Nullable(R.TopP())),
    frequency_penalty: opt(Nullable(R.Penalty())),
    presence_penalty: opt(Nullable(R.Penalty())),
    top_k: opt(R.TopK()),
    top_logprobs: opt(Nullable(R.TopLogprobs())),
    parallel_tool_calls: opt(Nullable(Type.Boolean())),
    tool_choice: opt(ToolChoiceSchema),
    tools: opt(R.Tools(Type.Union([FunctionToolSchema, ServerToolSchema, OtherToolSchema]))),
    include: opt(Nullable(Type.Array(Type.String({ description: `One of: ${INCLUDABLES.join(", ")}` }), { maxItems: 64 }))),
    modalities: opt(Type.Array(StringEnum(["text", "image"]))),
    image_config: opt(Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Array(Type.Unknown())]))),
    metadata: opt(Nullable(MetadataSchema)),
    plugins: opt(Type.Array(PluginSchema)),
    prompt: opt(
      Nullable(
        Type.Object(
          {
            id: Type.String({ minLength: 1 }),
            variables: opt(Nullable(Type.Record(Type.String(), Type.Unknown()))),
            version: opt(Nullable(Type.String())),
          },
          Open,
        ),
      ),
    ),
    prompt_cache_key: opt(Nullable(Type.String())),
    prompt_cache_options: opt(Type.Object({ mode: Type.Literal("explicit"), ttl: opt(Type.String()) }, Open)),
    cache_control: opt(CacheControlSchema),
    provider: opt(Nullable(Type.Object({ allow_fallbacks: opt(Nullable(Type.Boolean())) }, Open))),
    reasoning: opt(Nullable(ReasoningConfigSchema)),
    route: opt(Nullable(StringEnum(["fallback", "sort"]))),
    safety_identifier: opt(Nullable(Type.String())),
    service_tier: opt(Nullable(StringEnum(SERVICE_TIERS))),
    session_id: opt(Type.String({ maxLength: IDENTIFIER_MAX_LENGTH })),
    text: opt(
      Nullable(
        Type.Object({ format: opt(TextFormatSchema), verbosity: opt(Nullable(StringEnum(VERBOSITIES))) }, Open),
      ),
    ),
    debug: opt(Type.Object({ echo_upstream_body: opt(Type.Boolean()) }, Open)),
    trace: opt(
      Type.Object(
        {
          trace_id: opt(Type.String()),
          trace_name: opt(Type.String()),
          span_name: opt(Type.String()),
          generation_name: opt(Type.String()),
          parent_span_id: opt(Type.String()),
        },
        Open,
      ),
    ),
    truncation: opt(Nullable(Type.Literal("auto"))),
    user: opt(Type.String({ maxLength: IDENTIFIER_MAX_LENGTH })),
  },
  Open,
);

/** A schema-valid Responses request body. */
export type ResponsesRequest = Static<typeof ResponsesRequestSchema>;

/** Top-level fields decode understands; anything else becomes an `unknown_field` warning. */
export const KNOWN_FIELDS: ReadonlySet<string> = new Set(Object.keys(ResponsesRequestSchema.properties));
