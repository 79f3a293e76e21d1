/** Chat settings → canonical tools, tool choice, sampling, output and reasoning (spec "Chat-completions request"). */
import { errors } from "../../errors.ts";
import type { OutputFormat, ReasoningSettings, SamplingSettings, Tool, ToolChoice } from "../../model/request.ts";
import { warn, type Warning } from "../../model/warnings.ts";
import { hostedWebSearchTool } from "../shared/hosted-web-search.ts";
import { isServiceSpelling, serviceType } from "../shared/tool-spelling.ts";
import type { ChatRequest } from "./schema.ts";

type FunctionTool = Extract<Tool, { kind: "function" }>;
type ServerTool = Extract<Tool, { kind: "server" }>;

/** Copies the entries whose value is neither undefined nor null, so canonical objects carry no empty keys. */
export function assignDefined<T extends object>(target: T, values: { [K in keyof T]?: T[K] | null }): T {
  // for…in rather than Object.entries: no array of pairs per call (this runs several times per request).
  const source = values as Record<string, unknown>;
  for (const key in source) {
    const value = source[key];
    if (value !== undefined && value !== null) (target as Record<string, unknown>)[key] = value;
  }
  return target;
}

/**
 * `tools`: function tools are client-run; `service:*` (or the peer's `openrouter:*`) tools are server tools the
 * gateway runs; OpenAI's hosted web search is `service:web_search` (../shared/hosted-web-search.ts).
 */
export function decodeTools(tools: ChatRequest["tools"]): Tool[] {
  return (tools ?? []).map((tool): Tool => {
    if ("function" in tool) {
      const fn = tool.function;
      return assignDefined<FunctionTool>(
        { kind: "function", name: fn.name },
        {
          description: fn.description,
          parameters: fn.parameters,
          strict: fn.strict,
          deferLoading: tool.defer_loading ?? fn.defer_loading,
          cache: tool.cache_control && { ...tool.cache_control },
        },
      );
    }
    if (isServiceSpelling(tool.type)) {
      const server = tool as { type: string; parameters?: Record<string, unknown>; defer_loading?: boolean };
      const type = serviceType(server.type);
      return assignDefined<ServerTool>(
        { kind: "server", type },
        { parameters: server.parameters, spelling: type === server.type ? undefined : server.type, deferLoading: server.defer_loading },
      );
    }
    return hostedWebSearchTool(tool as Record<string, unknown>, false);
  });
}

/** `tool_choice`: `none` | `auto` | `required` | `{type: function, function: {name}}` | `{type: "service:<name>"}`. */
export function decodeToolChoice(choice: ChatRequest["tool_choice"]): ToolChoice | undefined {
  if (choice === undefined) return undefined;
  if (typeof choice === "string") return { type: choice };
  // A server tool is forced by its type; the agent loop maps it to the name the model sees.
  return "function" in choice ? { type: "tool", name: choice.function.name } : { type: "tool", name: serviceType(choice.type) };
}

/** `response_format` → output format. */
export function decodeResponseFormat(format: ChatRequest["response_format"]): OutputFormat | undefined {
  if (format === undefined) return undefined;
  if (format.type !== "json_schema") return { type: format.type };
  const spec = format.json_schema;
  // OpenAI makes `schema` optional; an absent schema means "any JSON object".
  return assignDefined<Extract<OutputFormat, { type: "json_schema" }>>(
    { type: "json_schema", name: spec.name, schema: spec.schema ?? {} },
    { strict: spec.strict, description: spec.description },
  );
}

/**
 * `reasoning` + the `reasoning_effort` shorthand. The shorthand may repeat `reasoning.effort` but never contradict it
 * (spec: "cannot be combined with a differing `reasoning.effort`").
 */
export function decodeReasoning(body: ChatRequest): ReasoningSettings | undefined {
  const config = body.reasoning;
  const shorthand = body.reasoning_effort ?? undefined;
  const nested = config?.effort ?? undefined;
  if (shorthand !== undefined && nested !== undefined && shorthand !== nested) {
    const message =
      `\`reasoning_effort\` ("${shorthand}") conflicts with \`reasoning.effort\` ("${nested}"); ` +
      "send one of them, or the same value in both";
    throw errors.invalid(message, { param: "reasoning_effort" });
  }
  if (config === undefined && shorthand === undefined) return undefined;
  const { effort: _effort, summary, enabled, max_tokens, ...rest } = config ?? {};
  const extra: Record<string, unknown> = {};
  assignDefined(extra, rest);
  return assignDefined<ReasoningSettings>(
    {},
    {
      effort: nested ?? shorthand,
      summary,
      enabled,
      maxTokens: max_tokens,
      extra: Object.keys(extra).length > 0 ? extra : undefined,
    },
  );
}

/** Sampling knobs; `stop` is normalised to a list. */
export function decodeSampling(body: ChatRequest): SamplingSettings {
  const stop = body.stop;
  return assignDefined<SamplingSettings>(
    {},
    {
      temperature: body.temperature,
      topP: body.top_p,
      topK: body.top_k,
      minP: body.min_p,
      frequencyPenalty: body.frequency_penalty,
      presencePenalty: body.presence_penalty,
      repetitionPenalty: body.repetition_penalty,
      seed: body.seed,
      stop: typeof stop === "string" ? [stop] : stop,
      logprobs: body.logprobs,
      topLogprobs: body.top_logprobs,
      logitBias: body.logit_bias,
    },
  );
}

/** One max-output-tokens value: `max_completion_tokens` wins over the deprecated `max_tokens`. */
export function decodeMaxTokens(body: ChatRequest, warnings: Warning[]): number | undefined {
  const current = body.max_completion_tokens ?? undefined;
  const legacy = body.max_tokens ?? undefined;
  if (current !== undefined && legacy !== undefined && current !== legacy) {
    warn(
      warnings,
      "conflicting_field",
      "max_tokens",
      `\`max_completion_tokens\` (${current}) was used; the deprecated \`max_tokens\` (${legacy}) was ignored`,
    );
  }
  return current ?? legacy;
}
