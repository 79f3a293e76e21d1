/**
 * Canonical request → Responses request body (Portkey-style `request` transform). High fidelity:
 * everything the Responses API understands is sent; what it cannot carry is pushed onto `request.warnings`.
 * Gateway-level fields (routing, plugins, agent limits, session, trace, debug) are consumed by the pipeline and are
 * not upstream fields. `store` is always false: the gateway never asks an upstream to keep state.
 */
import type { CanonicalRequest, Tool, ToolChoice, UpstreamTarget, Warning } from "../../core/sdk/index.ts";
import { isNativeWebSearch, resolveDeferredTools, warnMessageNames, warnNonTextModalities, warnSpeed, warnUnsupported } from "../../core/sdk/provider.ts";
import { toInputItems } from "./input.ts";
import { nativeWebSearchTool, WEB_SEARCH_SOURCES } from "./web-search.ts";
import type { ResponsesRequestBody, WireFunctionTool, WireTextFormat, WireToolChoice, WireWebSearchTool } from "./wire.ts";

/** Service tiers the Responses API knows; `ultrafast` is sent as its nearest, `priority`. */
const UPSTREAM_TIERS: ReadonlySet<string> = new Set(["auto", "default", "flex", "priority", "scale"]);
/** Verbosity values the Responses API knows; higher ones are sent as `high`. */
const UPSTREAM_VERBOSITY: ReadonlySet<string> = new Set(["low", "medium", "high"]);
/** The include value that makes a stateless upstream return reasoning the next turn can carry back. */
const ENCRYPTED_REASONING = "reasoning.encrypted_content";

/** Builds the exact body POSTed to `${baseUrl}/responses`. */
export function toResponsesBody(canonical: CanonicalRequest, target: UpstreamTarget, stream: boolean): ResponsesRequestBody {
  // OpenAI defers tools only for its own tool search, which the gateway never sends.
  const request = resolveDeferredTools(canonical, "openai-responses");
  const warnings = request.warnings;
  const body: ResponsesRequestBody = { model: target.upstreamModel, input: toInputItems(request.messages, warnings), store: false };
  const instructions = request.system.map((part) => part.text).join("\n\n");
  if (instructions !== "") body.instructions = instructions;
  if (request.system.some((part) => part.cache !== undefined)) {
    warnUnsupported(warnings, "cache_control", "Cache marks are not supported by the Responses API and were not sent");
  }
  if (stream) body.stream = true;
  const tools = toWireTools(request.tools, request.format, warnings);
  if (tools.length > 0) body.tools = tools;
  if (tools.some((tool) => tool.type === "web_search")) body.include = [WEB_SEARCH_SOURCES];
  if (request.toolChoice !== undefined) body.tool_choice = toWireToolChoice(request.toolChoice);
  const parallel = request.parallelToolCalls ?? (request.toolChoice?.type === "tool" && request.toolChoice.disableParallel ? false : undefined);
  if (parallel !== undefined) body.parallel_tool_calls = parallel;
  if (request.maxTokens !== undefined) body.max_output_tokens = request.maxTokens;
  applySampling(body, request, warnings);
  applyText(body, request, warnings);
  applyReasoning(body, request, warnings);
  applyMisc(body, request, warnings);
  return body;
}

/**
 * Function tools as sent, and a native `service:web_search` as OpenAI's own search (./web-search.ts); other server
 * tools are the gateway's and are not sent. Chat-completions and Messages clients get non-strict tools by default
 * while the Responses API defaults to strict, so an unset `strict` from those formats is sent as `false` to keep
 * their meaning.
 */
function toWireTools(tools: Tool[], format: CanonicalRequest["format"], warnings: Warning[]): Array<WireFunctionTool | WireWebSearchTool> {
  const out: Array<WireFunctionTool | WireWebSearchTool> = [];
  tools.forEach((tool, i) => {
    if (tool.kind === "server" && isNativeWebSearch(tool)) {
      out.push(nativeWebSearchTool(tool, i, warnings));
      return;
    }
    if (tool.kind === "server") {
      warnUnsupported(warnings, `tools[${i}]`, `Server tool ${tool.type} cannot be run by this upstream and was not sent`);
      return;
    }
    const wire: WireFunctionTool = { type: "function", name: tool.name };
    if (tool.description !== undefined) wire.description = tool.description;
    if (tool.parameters !== undefined) wire.parameters = tool.parameters;
    if (tool.strict !== undefined) wire.strict = tool.strict;
    else if (format !== "responses") wire.strict = false;
    if (tool.async !== undefined) wire.async = tool.async;
    if (tool.deferLoading !== undefined) wire.defer_loading = tool.deferLoading;
    if (tool.cache !== undefined) warnUnsupported(warnings, "cache_control", "Cache marks are not supported by the Responses API and were not sent");
    out.push(wire);
  });
  return out;
}

function toWireToolChoice(choice: ToolChoice): WireToolChoice {
  return choice.type === "tool" ? { type: "function", name: choice.name } : choice.type;
}

function applySampling(body: ResponsesRequestBody, request: CanonicalRequest, warnings: Warning[]): void {
  const s = request.sampling;
  if (s.temperature !== undefined) body.temperature = s.temperature;
  if (s.topP !== undefined) body.top_p = s.topP;
  if (s.topLogprobs !== undefined) body.top_logprobs = s.topLogprobs;
  const unsupported: Array<[keyof typeof s, string]> = [
    ["topK", "top_k"],
    ["minP", "min_p"],
    ["frequencyPenalty", "frequency_penalty"],
    ["presencePenalty", "presence_penalty"],
    ["repetitionPenalty", "repetition_penalty"],
    ["seed", "seed"],
    ["stop", "stop"],
    ["logitBias", "logit_bias"],
  ];
  for (const [key, field] of unsupported) {
    if (s[key] !== undefined) warnUnsupported(warnings, field, `${field} is not supported by the Responses API and was not sent`);
  }
}

function applyText(body: ResponsesRequestBody, request: CanonicalRequest, warnings: Warning[]): void {
  const output = request.output;
  if (!output) return;
  const text: NonNullable<ResponsesRequestBody["text"]> = {};
  const format = output.format;
  if (format) {
    if (format.type === "json_schema") {
      const wire: WireTextFormat = { type: "json_schema", name: format.name, schema: format.schema };
      if (format.strict !== undefined) wire.strict = format.strict;
      if (format.description !== undefined) wire.description = format.description;
      text.format = wire;
    } else text.format = { type: format.type };
  }
  if (output.verbosity !== undefined) {
    if (UPSTREAM_VERBOSITY.has(output.verbosity)) text.verbosity = output.verbosity;
    else {
      text.verbosity = "high";
      warnings.push({ code: "approximated", field: "text.verbosity", message: `verbosity ${output.verbosity} was sent as high` });
    }
  }
  if (text.format !== undefined || text.verbosity !== undefined) body.text = text;
}

/** Reasoning effort and summary; with reasoning on, encrypted reasoning is requested so the next turn can carry it. */
function applyReasoning(body: ResponsesRequestBody, request: CanonicalRequest, warnings: Warning[]): void {
  const reasoning = request.reasoning;
  if (!reasoning) return;
  const wire: NonNullable<ResponsesRequestBody["reasoning"]> = {};
  if (reasoning.effort !== undefined) wire.effort = reasoning.effort;
  else if (reasoning.enabled === false) wire.effort = "none";
  if (reasoning.summary !== undefined) wire.summary = reasoning.summary;
  if (reasoning.extra?.mode !== undefined) wire.mode = reasoning.extra.mode;
  if (reasoning.extra?.context !== undefined) wire.context = reasoning.extra.context;
  if (reasoning.maxTokens !== undefined) {
    warnUnsupported(warnings, "reasoning.max_tokens", "A reasoning token budget is not supported by the Responses API; use effort instead");
  }
  if (Object.keys(wire).length > 0) body.reasoning = wire;
  if (wire.effort !== "none") body.include = [...(body.include ?? []), ENCRYPTED_REASONING];
}

function applyMisc(body: ResponsesRequestBody, request: CanonicalRequest, warnings: Warning[]): void {
  if (request.metadata !== undefined) body.metadata = request.metadata;
  if (request.user !== undefined) body.user = request.user;
  // Already a SHA-256 digest (the decoder never keeps the raw value).
  if (request.safetyIdentifier !== undefined) body.safety_identifier = request.safetyIdentifier;
  if (request.serviceTier !== undefined) {
    if (UPSTREAM_TIERS.has(request.serviceTier)) body.service_tier = request.serviceTier;
    else {
      body.service_tier = "priority";
      warnings.push({ code: "approximated", field: "service_tier", message: `service_tier ${request.serviceTier} was sent as priority` });
    }
  }
  if (request.cache?.promptCacheKey !== undefined) body.prompt_cache_key = request.cache.promptCacheKey;
  if (request.cache?.options !== undefined) body.prompt_cache_options = request.cache.options;
  if (request.cache?.control !== undefined) {
    warnUnsupported(warnings, "cache_control", "Cache marks are not supported by the Responses API and were not sent");
  }
  warnNonTextModalities(request, "This Responses upstream", warnings);
  warnSpeed(request, "The Responses API", warnings);
  warnMessageNames(request, "Responses input", warnings);
  applyPassthrough(body, request.passthrough, warnings);
}

/** Responses-only fields the Responses decoder kept aside; the same family understands them as they are. */
function applyPassthrough(body: ResponsesRequestBody, passthrough: Record<string, unknown> | undefined, warnings: Warning[]): void {
  if (!passthrough) return;
  const include = passthrough.include;
  if (Array.isArray(include)) {
    const merged = new Set([...(body.include ?? []), ...include.filter((v): v is string => typeof v === "string")]);
    body.include = [...merged];
  }
  if (passthrough.prompt !== undefined) body.prompt = passthrough.prompt;
  if (typeof passthrough.truncation === "string") body.truncation = passthrough.truncation;
  if (passthrough.image_config !== undefined) {
    warnUnsupported(warnings, "image_config", "image_config is not supported by the Responses API and was not sent");
  }
  // Another format's extras (chat `prediction`, `top_a`; Messages' Anthropic-only fields and betas) have no place here.
  for (const key of Object.keys(passthrough)) {
    if (RESPONSES_PASSTHROUGH.has(key)) continue;
    warnUnsupported(warnings, key, `${key} is not supported by the Responses API and was not sent`);
  }
}

/** Passthrough keys this adapter reads (above). */
const RESPONSES_PASSTHROUGH: ReadonlySet<string> = new Set(["include", "prompt", "truncation", "image_config"]);
