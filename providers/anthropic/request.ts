/**
 * Canonical request → Anthropic Messages request body and headers (a Portkey-style `request`
 * transform). What Anthropic cannot honour is pushed onto `request.warnings`; gateway-level fields (routing, plugins,
 * agent limits, trace, debug) are consumed by the pipeline and are not upstream fields.
 */
import type { CanonicalRequest, Tool, UpstreamTarget, Warning } from "../../core/sdk/index.ts";
import { ANTHROPIC_BETA_PASSTHROUGH, ANTHROPIC_PASSTHROUGH, isNativeWebSearch, warn, warnMessageNames, warnNonTextModalities, warnUnsupported } from "../../core/sdk/provider.ts";
import { toWireMessages, toWireSystem } from "./messages.ts";
import { readAnthropicOptions } from "./options.ts";
import { applyThinking } from "./thinking.ts";
import { nativeWebSearchTool, ownTypedTool } from "./web-search-tool.ts";
import type { WireRequestBody, WireToolChoice } from "./wire.ts";

/**
 * Passthrough keys not to report: Anthropic's own, `route` (read by the routing stage) and `include` (asks for
 * reasoning state Anthropic returns anyway as signatures).
 */
const OWN_OR_NOT_UPSTREAM: ReadonlySet<string> = new Set([ANTHROPIC_PASSTHROUGH, ANTHROPIC_BETA_PASSTHROUGH, "route", "include"]);

/** Builds the exact body POSTed to `${baseUrl}/messages`. */
export function toAnthropicBody(request: CanonicalRequest, target: UpstreamTarget, stream: boolean): WireRequestBody {
  const warnings = request.warnings;
  const options = readAnthropicOptions(target.options);
  const maxTokensDefaulted = request.maxTokens === undefined;
  if (maxTokensDefaulted) {
    // `defaulted`, not a loss: the client sent nothing here (strict mode lets it pass; core/pipeline/strict/).
    warn(warnings, "defaulted", "max_tokens", `Anthropic requires max_tokens; the configured default ${options.default_max_tokens} was sent`);
  }
  const body: WireRequestBody = {
    model: target.upstreamModel,
    max_tokens: request.maxTokens ?? options.default_max_tokens,
    messages: toWireMessages(request.messages, warnings),
  };
  const system = toWireSystem(request.system);
  if (system !== undefined) body.system = system;
  if (request.cache?.control) body.cache_control = { ...request.cache.control };
  applyTools(body, request, warnings);
  applySampling(body, request, warnings);
  applyOutput(body, request, warnings);
  applyThinking(body, request, maxTokensDefaulted, options.default_max_tokens, warnings);
  applyEndUser(body, request, warnings);
  applyCacheSettings(request, warnings);
  warnNonTextModalities(request, "Anthropic", warnings);
  warnMessageNames(request, "Anthropic", warnings);
  if (request.metadata && Object.keys(request.metadata).length > 0) {
    warnUnsupported(warnings, "metadata", "Anthropic only accepts metadata.user_id; other metadata was not sent");
  }
  if (request.speed !== undefined) body.speed = request.speed;
  // Anthropic-only fields a Messages client sent (container, context_management, …) travel as they came.
  const extra = request.passthrough?.[ANTHROPIC_PASSTHROUGH];
  if (typeof extra === "object" && extra !== null) {
    for (const [key, value] of Object.entries(extra)) if (!(key in body)) body[key] = value;
  }
  for (const key of Object.keys(request.passthrough ?? {})) {
    if (OWN_OR_NOT_UPSTREAM.has(key)) continue;
    warnUnsupported(warnings, `passthrough.${key}`, `Provider-specific fields (${key}) only apply to their own upstream and were not sent to Anthropic`);
  }
  if (stream) body.stream = true;
  return body;
}

/**
 * `metadata.user_id` is Anthropic's one end-user field: `user` when sent, else the safety identifier (already a
 * SHA-256 digest: the raw value never leaves the decoder). With both, the identifier had no place.
 */
function applyEndUser(body: WireRequestBody, request: CanonicalRequest, warnings: Warning[]): void {
  const userId = request.user ?? request.safetyIdentifier;
  if (userId !== undefined) body.metadata = { user_id: userId };
  if (request.user !== undefined && request.safetyIdentifier !== undefined) {
    warnUnsupported(warnings, "safety_identifier", "Anthropic has one end-user field (metadata.user_id) and `user` took it; safety_identifier was not sent");
  }
}

/**
 * Anthropic caches exactly the blocks marked with `cache_control` (sent as they are), which is what
 * `prompt_cache_options.mode: "explicit"` asks for; a cache key or any other option has no place.
 */
function applyCacheSettings(request: CanonicalRequest, warnings: Warning[]): void {
  if (request.cache?.promptCacheKey !== undefined) warnUnsupported(warnings, "prompt_cache_key", "Anthropic has no prompt cache key; it was not sent");
  const options = request.cache?.options;
  if (options !== undefined && Object.entries(options).some(([key, value]) => !(key === "mode" && value === "explicit"))) {
    warnUnsupported(warnings, "prompt_cache_options", "Anthropic caches the blocks marked with cache_control; other prompt_cache_options were not sent");
  }
}

/** Headers: `x-api-key`, `anthropic-version`, merged `anthropic-beta`; target headers last so an operator can override. */
export function anthropicHeaders(request: CanonicalRequest, target: UpstreamTarget): Record<string, string> {
  const options = readAnthropicOptions(target.options);
  const headers: Record<string, string> = { "anthropic-version": options.anthropic_version };
  if (target.apiKey) headers["x-api-key"] = target.apiKey;
  const fromClient = request.passthrough?.[ANTHROPIC_BETA_PASSTHROUGH];
  const clientBetas = Array.isArray(fromClient) ? fromClient.filter((b): b is string => typeof b === "string") : [];
  const betas = [...new Set([...options.beta, ...clientBetas])];
  if (betas.length > 0) headers["anthropic-beta"] = betas.join(",");
  return { ...headers, ...target.headers };
}

function applyTools(body: WireRequestBody, request: CanonicalRequest, warnings: Warning[]): void {
  const tools = request.tools.flatMap((tool, i) => wireTool(tool, i, warnings));
  if (tools.length === 0) return;
  body.tools = tools;
  const choice = request.toolChoice;
  const noParallel = request.parallelToolCalls === false || (choice?.type === "tool" && choice.disableParallel === true);
  let wire: WireToolChoice | undefined;
  if (choice?.type === "tool") wire = { type: "tool", name: choice.name };
  else if (choice?.type === "required") wire = { type: "any" };
  else if (choice !== undefined) wire = { type: choice.type };
  else if (noParallel) wire = { type: "auto" };
  // `none` takes no parallel flag; the others carry it when parallel calls are off.
  if (wire !== undefined && noParallel && wire.type !== "none") wire.disable_parallel_tool_use = true;
  if (wire !== undefined) body.tool_choice = wire;
}

function wireTool(tool: Tool, i: number, warnings: Warning[]): Array<Record<string, unknown>> {
  if (tool.kind === "server") {
    if (isNativeWebSearch(tool)) return [nativeWebSearchTool(tool, i, warnings)];
    if (tool.type.startsWith("service:")) {
      warnUnsupported(warnings, `tools[${i}]`, `Server tool ${tool.type} is run by the gateway and was not sent upstream`);
      return [];
    }
    // Anthropic's own typed tools (web_search_20250305, bash_20250124, …) go back exactly as the client sent them.
    return [{ type: tool.type, ...tool.parameters }];
  }
  const typed = ownTypedTool(tool);
  if (typed) return [typed];
  const out: Record<string, unknown> = { name: tool.name, input_schema: tool.parameters ?? { type: "object", properties: {} } };
  if (tool.description !== undefined) out.description = tool.description;
  if (tool.cache !== undefined) out.cache_control = { ...tool.cache };
  if (tool.strict !== undefined) out.strict = tool.strict;
  if (tool.deferLoading !== undefined) out.defer_loading = tool.deferLoading;
  if (tool.async === true) warnUnsupported(warnings, `tools[${i}].async`, "Anthropic has no async tools; the tool was sent as an ordinary tool");
  return [out];
}

function applySampling(body: WireRequestBody, request: CanonicalRequest, warnings: Warning[]): void {
  const s = request.sampling;
  if (s.temperature !== undefined) body.temperature = s.temperature;
  if (s.topP !== undefined) body.top_p = s.topP;
  if (s.topK !== undefined) body.top_k = s.topK;
  if (s.stop !== undefined && s.stop.length > 0) body.stop_sequences = s.stop;
  const unsupported: Array<[keyof typeof s, string]> = [
    ["minP", "min_p"],
    ["frequencyPenalty", "frequency_penalty"],
    ["presencePenalty", "presence_penalty"],
    ["repetitionPenalty", "repetition_penalty"],
    ["seed", "seed"],
    ["logprobs", "logprobs"],
    ["topLogprobs", "top_logprobs"],
    ["logitBias", "logit_bias"],
  ];
  for (const [key, field] of unsupported) {
    if (s[key] !== undefined) warnUnsupported(warnings, field, `Anthropic does not support ${field}; it was not sent`);
  }
}

function applyOutput(body: WireRequestBody, request: CanonicalRequest, warnings: Warning[]): void {
  const format = request.output?.format;
  if (format?.type === "json_schema") body.output_config = { ...body.output_config, format: { type: "json_schema", schema: format.schema } };
  else if (format?.type === "json_object") {
    warnUnsupported(warnings, "response_format", "Anthropic has no JSON mode without a schema; the format was not sent");
  }
  if (request.output?.verbosity !== undefined) warnUnsupported(warnings, "verbosity", "Anthropic does not support verbosity; it was not sent");
}
