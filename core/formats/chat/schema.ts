/**
 * TypeBox schema of the chat-completions request body (spec "Chat-completions request", "Limits").
 * The numeric and size limits live here so the edge rejects them with a 400 before decode runs; those with a meaning
 * every format shares come from ../shared/ranges.ts, so each format applies the same ones. Unknown top-level
 * fields are accepted and decode records them as warnings.
 */
import { Type, type Static, type TSchema } from "@sinclair/typebox";
import { CacheControlSchema, Nullable, Open, ReasoningEffortSchema, StopConditionsSchema, StringEnum } from "../shared/schema.ts";
import * as R from "../shared/ranges.ts";
import { ChatMessageSchema, TextContentSchema } from "./schema-messages.ts";
import { WEB_SEARCH_SHORTHANDS } from "../shared/hosted-web-search.ts";

/**
 * Function tool `{type: function, function: {name, description, parameters, strict}}`. `defer_loading` (beside
 * `cache_control`, or inside `function` as Responses clients write it) withholds the tool until `service:tool_search`
 * finds it, as on Responses.
 */
export const FunctionToolSchema = Type.Object({
  type: Type.Literal("function"),
  function: Type.Object({
    name: Type.String({ minLength: 1 }),
    description: Type.Optional(Type.String()),
    parameters: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    strict: Type.Optional(Nullable(Type.Boolean())),
    defer_loading: Type.Optional(Type.Boolean()),
  }),
  cache_control: Type.Optional(CacheControlSchema),
  defer_loading: Type.Optional(Type.Boolean()),
});

/** Server tool `{type: "service:<name>", parameters}` run by the gateway; `openrouter:<name>` is the same tool. */
export const ServerToolSchema = Type.Object({
  type: Type.String({ pattern: "^(?:service|openrouter):" }),
  parameters: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  defer_loading: Type.Optional(Type.Boolean()),
});

/** `{type: "web_search", search_context_size?, user_location?, ...}`: its other fields are the tool's parameters. */
export const WebSearchShorthandSchema = Type.Object({ type: StringEnum([...WEB_SEARCH_SHORTHANDS]) }, { additionalProperties: true });

/**
 * `tool_choice`: `none` | `auto` | `required` | `{type: function, function: {name}}` | `{type: "service:<name>"}`
 * (force a server tool; `openrouter:<name>` is the same).
 */
export const ToolChoiceSchema = Type.Union([
  StringEnum(["none", "auto", "required"]),
  Type.Object({ type: Type.Literal("function"), function: Type.Object({ name: Type.String() }) }),
  Type.Object({ type: Type.String({ pattern: "^(?:service|openrouter):" }) }),
]);

/** `response_format`: text, json_object or json_schema. */
export const ResponseFormatSchema = Type.Union([
  Type.Object({ type: Type.Literal("text") }),
  Type.Object({ type: Type.Literal("json_object") }),
  Type.Object({
    type: Type.Literal("json_schema"),
    json_schema: Type.Object({
      name: Type.String(),
      description: Type.Optional(Type.String()),
      schema: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
      strict: Type.Optional(Nullable(Type.Boolean())),
    }),
  }),
]);

/** `reasoning` config; keys beyond these pass through to `reasoning.extra`. */
export const ReasoningConfigSchema = Type.Object({
  effort: Type.Optional(Nullable(ReasoningEffortSchema)),
  summary: Type.Optional(Nullable(StringEnum(["auto", "concise", "detailed"]))),
  enabled: Type.Optional(Nullable(Type.Boolean())),
  max_tokens: Type.Optional(Nullable(R.ReasoningTokens())),
  mode: Type.Optional(Nullable(StringEnum(["standard", "pro"]))),
  context: Type.Optional(Nullable(StringEnum(["auto", "all_turns", "current_turn"]))),
});


const int = () => Type.Optional(Nullable(Type.Integer()));
const opt = <T extends TSchema>(schema: T) => Type.Optional(Nullable(schema));

/** The request body of `POST /chat/completions` (spec "Chat-completions request"). */
export const ChatRequestSchema = Type.Object(
  {
    messages: Type.Array(ChatMessageSchema, { minItems: 1 }),
    model: Type.Optional(R.ModelId()),
    models: Type.Optional(R.ModelIds()),
    frequency_penalty: opt(R.Penalty()),
    presence_penalty: opt(R.Penalty()),
    repetition_penalty: opt(R.RepetitionPenalty()),
    temperature: opt(R.Temperature()),
    top_p: opt(R.TopP()),
    top_k: opt(R.TopK()),
    min_p: opt(R.UnitInterval()),
    top_a: opt(R.UnitInterval()),
    top_logprobs: opt(R.TopLogprobs()),
    logprobs: Type.Optional(Nullable(Type.Boolean())),
    logit_bias: opt(Type.Record(Type.String(), R.LogitBias())),
    max_completion_tokens: opt(R.MaxOutputTokens()),
    max_tokens: opt(R.MaxOutputTokens()),
    seed: int(),
    stop: opt(Type.Union([Type.String(), R.StopSequences()])),
    stream: Type.Optional(Nullable(Type.Boolean())),
    stream_options: Type.Optional(Nullable(Type.Object({ include_usage: Type.Optional(Nullable(Type.Boolean())) }))),
    parallel_tool_calls: Type.Optional(Nullable(Type.Boolean())),
    tool_choice: Type.Optional(ToolChoiceSchema),
    tools: Type.Optional(R.Tools(Type.Union([FunctionToolSchema, ServerToolSchema, WebSearchShorthandSchema]))),
    response_format: Type.Optional(ResponseFormatSchema),
    verbosity: Type.Optional(Nullable(StringEnum(["low", "medium", "high", "xhigh", "max"]))),
    prediction: Type.Optional(
      Nullable(
        Type.Object({
          type: Type.Literal("content"),
          content: Type.Union([Type.String(), Type.Array(TextContentSchema)]),
        }),
      ),
    ),
    modalities: Type.Optional(Nullable(Type.Array(StringEnum(["text", "image", "audio"])))),
    /** OpenAI's spoken-output settings, required beside `modalities: ["audio"]`; passed to chat upstreams as sent. */
    audio: Type.Optional(Nullable(Type.Object({ voice: Type.Unknown(), format: Type.String() }, Open))),
    reasoning: Type.Optional(ReasoningConfigSchema),
    reasoning_effort: Type.Optional(Nullable(ReasoningEffortSchema)),
    metadata: opt(R.Metadata()),
    plugins: Type.Optional(Type.Array(Type.Object({ id: Type.String(), enabled: Type.Optional(Type.Boolean()) }))),
    provider: Type.Optional(Nullable(Type.Record(Type.String(), Type.Unknown()))),
    route: Type.Optional(Nullable(StringEnum(["fallback", "sort"]))),
    service_tier: Type.Optional(
      Nullable(StringEnum(["auto", "default", "fast", "flex", "priority", "scale", "ultrafast"])),
    ),
    session_id: Type.Optional(Type.String({ maxLength: 256 })),
    stop_server_tools_when: Type.Optional(StopConditionsSchema),
    cache_control: Type.Optional(CacheControlSchema),
    prompt_cache_key: Type.Optional(Nullable(Type.String())),
    prompt_cache_options: Type.Optional(
      Type.Object({ mode: Type.Literal("explicit"), ttl: Type.Optional(Type.String()) }),
    ),
    image_config: Type.Optional(
      Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Array(Type.Unknown())])),
    ),
    debug: Type.Optional(Type.Object({ echo_upstream_body: Type.Optional(Type.Boolean()) })),
    trace: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    user: Type.Optional(Type.String({ maxLength: 256 })),
    safety_identifier: Type.Optional(Nullable(Type.String())),
  },
  Open,
);

/** A schema-valid chat-completions request body. */
export type ChatRequest = Static<typeof ChatRequestSchema>;

/** Top-level fields decode understands; anything else becomes an `unknown_field` warning. */
export const KNOWN_FIELDS: ReadonlySet<string> = new Set(Object.keys(ChatRequestSchema.properties));
