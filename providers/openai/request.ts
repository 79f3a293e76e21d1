/**
 * Canonical request → chat-completions request body (Portkey-style `request` transform).
 * Fields this upstream cannot honour are pushed onto `request.warnings` as `unsupported_field`; gateway-level
 * fields (routing, plugins, agent limits, trace, debug) are consumed by the pipeline and are not upstream fields.
 */
import type { CanonicalRequest, OutputFormat, Tool, ToolChoice, UpstreamTarget, Warning } from "../../core/sdk/index.ts";
import { refuseNativeServerTool, resolveDeferredTools, warnAsyncTools, warnSpeed, warnUnsupported } from "../../core/sdk/provider.ts";
import { toWireMessages } from "./messages.ts";
import { readOpenAIOptions } from "./options.ts";
import type { ChatRequestBody, WireTool } from "./wire.ts";

/** Builds the exact body POSTed to `${baseUrl}/chat/completions` (reasoning left to a kind that `ownsReasoning`). */
export function toChatBody(canonical: CanonicalRequest, target: UpstreamTarget, stream: boolean, ownsReasoning = false): ChatRequestBody {
  const request = resolveDeferredTools(canonical, "openai");
  const warnings = request.warnings;
  const options = readOpenAIOptions(target.options);
  const body: ChatRequestBody = { model: target.upstreamModel, messages: toWireMessages(request.system, request.messages, warnings) };
  if (stream) {
    body.stream = true;
    // Always: the gateway bills from usage, whatever the client asked for.
    body.stream_options = { include_usage: true };
  }
  const tools = toWireTools(request.tools, warnings);
  if (tools.length > 0) {
    body.tools = tools;
    // OpenAI rejects tool_choice / parallel_tool_calls without tools, so they only travel together.
    if (request.toolChoice !== undefined) body.tool_choice = toWireToolChoice(request.toolChoice);
    const parallel = request.parallelToolCalls ?? (request.toolChoice?.type === "tool" && request.toolChoice.disableParallel ? false : undefined);
    if (parallel !== undefined) body.parallel_tool_calls = parallel;
  }
  applySampling(body, request);
  if (request.maxTokens !== undefined) body[options.max_tokens_field] = request.maxTokens;
  applyOutput(body, request.output);
  if (!ownsReasoning) applyReasoning(body, request, warnings);
  applyMisc(body, request, warnings);
  warnSpeed(request, "Chat completions", warnings);
  warnAsyncTools(request, "Chat completions", warnings);
  return body;
}

function toWireTools(tools: Tool[], warnings: Warning[]): WireTool[] {
  const out: WireTool[] = [];
  tools.forEach((tool, i) => {
    if (tool.kind === "server") {
      refuseNativeServerTool(tool, i, "openai"); // the client asked for a search this upstream cannot run: a 400
      warnUnsupported(warnings, `tools[${i}]`, `Server tool ${tool.type} cannot be run by this upstream and was not sent`);
      return;
    }
    const fn: WireTool["function"] = { name: tool.name };
    if (tool.description !== undefined) fn.description = tool.description;
    if (tool.parameters !== undefined) fn.parameters = tool.parameters;
    if (tool.strict !== undefined) fn.strict = tool.strict;
    if (tool.cache !== undefined) warnUnsupported(warnings, "cache_control", "Cache marks are not supported by chat completions and were not sent");
    out.push({ type: "function", function: fn });
  });
  return out;
}

function toWireToolChoice(choice: ToolChoice): NonNullable<ChatRequestBody["tool_choice"]> {
  return choice.type === "tool" ? { type: "function", function: { name: choice.name } } : choice.type;
}

function applySampling(body: ChatRequestBody, request: CanonicalRequest): void {
  const s = request.sampling;
  if (s.temperature !== undefined) body.temperature = s.temperature;
  if (s.topP !== undefined) body.top_p = s.topP;
  if (s.topK !== undefined) body.top_k = s.topK;
  if (s.minP !== undefined) body.min_p = s.minP;
  if (s.frequencyPenalty !== undefined) body.frequency_penalty = s.frequencyPenalty;
  if (s.presencePenalty !== undefined) body.presence_penalty = s.presencePenalty;
  if (s.repetitionPenalty !== undefined) body.repetition_penalty = s.repetitionPenalty;
  if (s.seed !== undefined) body.seed = s.seed;
  if (s.stop !== undefined && s.stop.length > 0) body.stop = s.stop;
  if (s.logprobs !== undefined) body.logprobs = s.logprobs;
  if (s.topLogprobs !== undefined) {
    body.top_logprobs = s.topLogprobs;
    // Chat completions rejects `top_logprobs` unless `logprobs` is true; formats without a `logprobs` switch
    // (Responses) ask for logprobs through `top_logprobs` alone. An explicit `logprobs: false` is left as sent.
    if (s.logprobs === undefined) body.logprobs = true;
  }
  if (s.logitBias !== undefined) body.logit_bias = s.logitBias;
}

function applyOutput(body: ChatRequestBody, output: CanonicalRequest["output"]): void {
  const format: OutputFormat | undefined = output?.format;
  // `text` is the default; leaving it out keeps servers without response_format support working.
  if (format?.type === "json_object") body.response_format = { type: "json_object" };
  if (format?.type === "json_schema") {
    const schema: { name: string; schema: Record<string, unknown>; strict?: boolean; description?: string } = { name: format.name, schema: format.schema };
    if (format.strict !== undefined) schema.strict = format.strict;
    if (format.description !== undefined) schema.description = format.description;
    body.response_format = { type: "json_schema", json_schema: schema };
  }
  if (output?.verbosity !== undefined) body.verbosity = output.verbosity;
}

/**
 * The reasoning settings chat completions has a field for (`reasoning_effort`); the others are warned about. A kind
 * whose server has its own on/off switch (`switchable`) sends `enabled` itself, so that one is not warned about.
 */
export function applyReasoning(body: ChatRequestBody, request: CanonicalRequest, warnings: Warning[], switchable = false): void {
  const r = request.reasoning;
  if (r === undefined) return;
  if (r.effort !== undefined) body.reasoning_effort = r.effort;
  if (r.maxTokens !== undefined) warnUnsupported(warnings, "reasoning.max_tokens", "A reasoning token budget is not supported by chat completions; only the effort was sent");
  if (r.summary !== undefined) warnUnsupported(warnings, "reasoning.summary", "Reasoning summaries are not available from chat completions");
  if (r.enabled === false && r.effort === undefined && !switchable) {
    warnUnsupported(warnings, "reasoning.enabled", "Chat completions cannot switch reasoning off without an effort; the model default applies");
  }
  if (r.extra !== undefined && Object.keys(r.extra).length > 0) warnUnsupported(warnings, "reasoning", "Extra reasoning settings are not supported by chat completions");
}

/**
 * Extras every format may carry that chat completions takes as they are: `image_config` (aspect ratio, image size of
 * image output) is the same object in the Responses and chat requests.
 */
const SHARED_EXTRAS = new Set(["image_config"]);

/** Body fields the adapter controls: a passthrough must never flip streaming, the model or the choice count. */
const ADAPTER_OWNED = new Set(["model", "messages", "stream", "stream_options", "max_tokens", "max_completion_tokens", "n"]);

function applyMisc(body: ChatRequestBody, request: CanonicalRequest, warnings: Warning[]): void {
  if (request.user !== undefined) body.user = request.user;
  if (request.safetyIdentifier !== undefined) body.safety_identifier = request.safetyIdentifier;
  if (request.metadata !== undefined) body.metadata = request.metadata;
  if (request.serviceTier !== undefined) body.service_tier = request.serviceTier;
  if (request.modalities !== undefined) body.modalities = request.modalities;
  if (request.cache?.promptCacheKey !== undefined) body.prompt_cache_key = request.cache.promptCacheKey;
  if (request.cache?.control !== undefined || request.cache?.options !== undefined) {
    warnUnsupported(warnings, "cache_control", "Explicit prompt caching is not supported by chat completions (OpenAI caches prompts automatically)");
  }
  const extras = request.passthrough ?? {};
  for (const [key, value] of Object.entries(extras)) {
    if (ADAPTER_OWNED.has(key)) {
      warnUnsupported(warnings, key, `${key} is set by the gateway for this upstream; the client's value was not sent`);
    } else if (request.format !== "chat" && !SHARED_EXTRAS.has(key)) {
      warnUnsupported(warnings, key, `${key} belongs to the ${request.format} format and is not understood by chat completions`);
    } else if (!(key in body)) {
      // Chat-format extras are already in this upstream's dialect; fields set above win.
      body[key] = value;
    }
  }
}
