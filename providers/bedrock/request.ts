/**
 * Canonical request → the Converse request body (the model id travels in the URL). What Bedrock cannot honour is
 * pushed onto `request.warnings`; gateway-level fields (routing, plugins, agent limits, trace, debug) are consumed by
 * the pipeline and are not upstream fields.
 */
import type { CanonicalRequest, Warning } from "../../core/sdk/index.ts";
import { ANTHROPIC_REASONING_FORMAT, resolveDeferredTools, warnAsyncTools, warnMessageNames, warnNonTextModalities, warnSpeed, warnUnsupported } from "../../core/sdk/provider.ts";
import type { BedrockEndpoint } from "./endpoint.ts";
import { cachePoint, toWireMessages, toWireSystem } from "./messages.ts";
import { applyOutput } from "./output.ts";
import { applyReasoning } from "./reasoning.ts";
import { toWireToolConfig } from "./tools.ts";
import type { WireRequestBody } from "./wire.ts";

/** Passthrough keys not to report: `route` (read by the routing stage) and `include` (asks for state Bedrock returns anyway). */
const NOT_UPSTREAM: ReadonlySet<string> = new Set(["route", "include"]);

/** Bedrock's service tiers (`serviceTier.type`); `auto` is Bedrock's default and sends nothing. */
const SERVICE_TIERS: ReadonlySet<string> = new Set(["default", "flex", "priority"]);

/** Builds the exact body POSTed to the endpoint's Converse or ConverseStream URL. */
export function toConverseBody(original: CanonicalRequest, endpoint: BedrockEndpoint): WireRequestBody {
  const request = resolveDeferredTools(original, "Bedrock");
  const warnings = original.warnings;
  const { traits } = endpoint;
  const body: WireRequestBody = { messages: toWireMessages(request.messages, traits, ANTHROPIC_REASONING_FORMAT, warnings) };
  if (request.cache?.control !== undefined) markConversationEnd(body, request.cache.control);
  const system = toWireSystem(request.system);
  if (system !== undefined) body.system = system;
  applySampling(body, request, endpoint, warnings);
  applyReasoning(body, request, traits, endpoint.options.defaultMaxTokens, warnings);
  const tools = applyOutput(body, request, traits, toWireToolConfig(request, body.messages, traits, warnings), warnings);
  if (tools !== undefined) body.toolConfig = tools;
  applyRequestFields(body, request, warnings);
  return body;
}

/**
 * A request-wide cache mark (Messages' top-level `cache_control`: cache everything so far) as a `cachePoint` closing
 * the last turn.
 */
function markConversationEnd(body: WireRequestBody, mark: NonNullable<NonNullable<CanonicalRequest["cache"]>["control"]>): void {
  const last = body.messages.at(-1);
  if (last === undefined || last.content.length === 0 || "cachePoint" in (last.content.at(-1) ?? {})) return;
  last.content.push({ cachePoint: cachePoint(mark) });
}

function applySampling(body: WireRequestBody, request: CanonicalRequest, endpoint: BedrockEndpoint, warnings: Warning[]): void {
  const s = request.sampling;
  const inference: NonNullable<WireRequestBody["inferenceConfig"]> = {};
  if (request.maxTokens !== undefined) inference.maxTokens = request.maxTokens;
  if (s.temperature !== undefined) inference.temperature = s.temperature;
  if (s.topP !== undefined) inference.topP = s.topP;
  if (s.stop !== undefined && s.stop.length > 0) inference.stopSequences = s.stop;
  if (Object.keys(inference).length > 0) body.inferenceConfig = inference;
  if (s.topK !== undefined) {
    // Converse has no top_k; Claude reads it from the model's own fields.
    if (endpoint.traits.claude) body.additionalModelRequestFields = { ...body.additionalModelRequestFields, top_k: s.topK };
    else warnUnsupported(warnings, "top_k", "Converse has no top_k for this model; it was not sent");
  }
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
    if (s[key] !== undefined) warnUnsupported(warnings, field, `Bedrock's Converse API has no ${field}; it was not sent`);
  }
}

/** Metadata, end user, service tier, caching options and the fields no Bedrock model has. */
function applyRequestFields(body: WireRequestBody, request: CanonicalRequest, warnings: Warning[]): void {
  const metadata = request.metadata ?? {};
  const entries = Object.entries(metadata);
  if (entries.length > 0) {
    // Bedrock's requestMetadata (kept with the invocation logs): at most 16 pairs, keys 1-256 and values 0-256 characters.
    if (entries.length <= 16 && entries.every(([key, value]) => key.length >= 1 && key.length <= 256 && value.length <= 256)) body.requestMetadata = { ...metadata };
    else warnUnsupported(warnings, "metadata", "Bedrock's requestMetadata takes at most 16 pairs of up to 256 characters; metadata was not sent");
  }
  if (request.user !== undefined) warnUnsupported(warnings, "user", "Bedrock has no end-user field; user was not sent");
  if (request.safetyIdentifier !== undefined) warnUnsupported(warnings, "safety_identifier", "Bedrock has no end-user field; safety_identifier was not sent");
  const tier = request.serviceTier;
  if (tier !== undefined && tier !== "auto") {
    if (SERVICE_TIERS.has(tier)) body.serviceTier = { type: tier };
    else warnUnsupported(warnings, "service_tier", `Bedrock's service tiers are default, flex and priority; ${tier} was not sent`);
  }
  if (request.cache?.promptCacheKey !== undefined) warnUnsupported(warnings, "prompt_cache_key", "Bedrock has no prompt cache key; it was not sent");
  const options = request.cache?.options;
  if (options !== undefined && Object.entries(options).some(([key, value]) => !(key === "mode" && value === "explicit"))) {
    warnUnsupported(warnings, "prompt_cache_options", "Bedrock caches the prefixes marked with cache points; other prompt_cache_options were not sent");
  }
  warnSpeed(request, "Bedrock", warnings);
  warnNonTextModalities(request, "Bedrock", warnings);
  warnMessageNames(request, "Bedrock", warnings);
  warnAsyncTools(request, "Bedrock", warnings);
  for (const key of Object.keys(request.passthrough ?? {})) {
    if (NOT_UPSTREAM.has(key)) continue;
    warnUnsupported(warnings, `passthrough.${key}`, `Provider-specific fields (${key}) only apply to their own upstream and were not sent to Bedrock`);
  }
}
