/**
 * Body ⇄ preset config translation. `toConfig` reads a request body of any format
 * into the chat-named vocabulary of `fields.ts`; `fromConfig` writes a config back in a format's own field names.
 */
import type { InboundFormat } from "../model/request.ts";
import { CONFIG_ONLY, VERBATIM } from "./fields.ts";
import { copyKeys, isRecord, type Json } from "./json.ts";
import { toolChoiceFromChat, toolChoiceToChat, translateTools } from "./tools.ts";

/** The config fields a body carries (everything else — messages, input, stream, prompt… — is ignored). */
export function toConfig(format: InboundFormat, body: Json): Json {
  const config: Json = {};
  copyKeys(config, body, VERBATIM[format]);
  copyKeys(config, body, CONFIG_ONLY);
  if (format === "chat") return config;
  if (Array.isArray(body.tools)) config.tools = translateTools(format, "chat", body.tools, true);
  const choice = body.tool_choice === undefined ? undefined : toolChoiceToChat(format, body.tool_choice);
  if (choice !== undefined) config.tool_choice = choice;
  if (format === "responses") {
    if (body.max_output_tokens !== undefined) config.max_completion_tokens = body.max_output_tokens;
    if (isRecord(body.text)) {
      const responseFormat = responsesFormatToChat(body.text.format);
      if (responseFormat !== undefined) config.response_format = responseFormat;
      if (body.text.verbosity !== undefined) config.verbosity = body.text.verbosity;
    }
    return config;
  }
  // Messages.
  if (body.max_tokens !== undefined) config.max_tokens = body.max_tokens;
  if (body.stop_sequences !== undefined) config.stop = body.stop_sequences;
  if (Array.isArray(body.fallbacks) && config.models === undefined) {
    config.models = body.fallbacks.flatMap((entry) => (isRecord(entry) && typeof entry.model === "string" ? [entry.model] : []));
  }
  if (isRecord(body.tool_choice) && body.tool_choice.disable_parallel_tool_use === true) config.parallel_tool_calls = false;
  if (isRecord(body.output_config)) {
    const responseFormat = messagesFormatToChat(body.output_config.format);
    if (responseFormat !== undefined) config.response_format = responseFormat;
    if (typeof body.output_config.effort === "string") config.reasoning_effort = body.output_config.effort;
  }
  return config;
}

/** The config in `format`'s own field names; fields that format cannot express are left out. */
export function fromConfig(format: InboundFormat, config: Json): Json {
  const out: Json = {};
  copyKeys(out, config, VERBATIM[format]);
  if (Array.isArray(config.tools)) out.tools = translateTools("chat", format, config.tools);
  if (format === "chat") return out;
  const choice = config.tool_choice === undefined ? undefined : toolChoiceFromChat(format, config.tool_choice);
  if (choice !== undefined) out.tool_choice = choice;
  const maxTokens = config.max_completion_tokens ?? config.max_tokens;
  const effort = effortOf(config);
  if (format === "responses") {
    if (maxTokens !== undefined) out.max_output_tokens = maxTokens;
    const text: Json = {};
    const textFormat = chatFormatToResponses(config.response_format);
    if (textFormat !== undefined) text.format = textFormat;
    if (config.verbosity !== undefined) text.verbosity = config.verbosity;
    if (Object.keys(text).length > 0) out.text = text;
    if (effort !== undefined && !(isRecord(config.reasoning) && config.reasoning.effort !== undefined)) {
      out.reasoning = { ...(isRecord(config.reasoning) ? config.reasoning : {}), effort };
    }
    return out;
  }
  // Messages.
  if (maxTokens !== undefined) out.max_tokens = maxTokens;
  if (config.stop !== undefined && config.stop !== null) out.stop_sequences = typeof config.stop === "string" ? [config.stop] : config.stop;
  if (config.parallel_tool_calls === false && isRecord(out.tool_choice)) out.tool_choice = { ...out.tool_choice, disable_parallel_tool_use: true };
  const outputConfig: Json = {};
  const outputFormat = chatFormatToMessages(config.response_format);
  if (outputFormat !== undefined) outputConfig.format = outputFormat;
  if (effort !== undefined) outputConfig.effort = effort;
  if (Object.keys(outputConfig).length > 0) out.output_config = outputConfig;
  return out;
}

/** Reasoning effort from `reasoning_effort` or `reasoning.effort`. */
function effortOf(config: Json): unknown {
  if (config.reasoning_effort !== undefined && config.reasoning_effort !== null) return config.reasoning_effort;
  return isRecord(config.reasoning) && config.reasoning.effort !== null ? config.reasoning.effort : undefined;
}

/** Responses `text.format` → chat `response_format`. */
function responsesFormatToChat(format: unknown): Json | undefined {
  if (!isRecord(format) || typeof format.type !== "string") return undefined;
  if (format.type !== "json_schema") return { type: format.type };
  const { type: _type, ...schema } = format;
  return { type: "json_schema", json_schema: schema };
}

/** Chat `response_format` → Responses `text.format`. */
function chatFormatToResponses(format: unknown): Json | undefined {
  if (!isRecord(format) || typeof format.type !== "string") return undefined;
  if (format.type !== "json_schema") return { type: format.type };
  return { type: "json_schema", ...(isRecord(format.json_schema) ? format.json_schema : {}) };
}

/** Messages `output_config.format` (json_schema only) → chat `response_format`. */
function messagesFormatToChat(format: unknown): Json | undefined {
  if (!isRecord(format) || format.type !== "json_schema") return undefined;
  return { type: "json_schema", json_schema: { name: typeof format.name === "string" ? format.name : "response", schema: format.schema } };
}

/** Chat `response_format` → Messages `output_config.format`; Messages has only JSON-schema output. */
function chatFormatToMessages(format: unknown): Json | undefined {
  if (!isRecord(format) || format.type !== "json_schema" || !isRecord(format.json_schema)) return undefined;
  const { name, schema } = format.json_schema;
  return name === undefined ? { type: "json_schema", schema } : { type: "json_schema", schema, name };
}
