/**
 * Responses request body → canonical request (spec "Responses request"). Enforces the semantic 400
 * rules the schema cannot state with a useful message, hashes `safety_identifier`, and records as warnings whatever
 * it accepted but cannot honour exactly.
 */
import { foldRoute } from "../shared/route.ts";
import { hashSafetyIdentifier } from "../shared/safety-identifier.ts";
import { serviceStopConditions } from "../shared/tool-spelling.ts";
import { errors } from "../../errors.ts";
import type { TextPart } from "../../model/parts.ts";
import type { CanonicalRequest, OutputFormat, ProviderPreferences, ReasoningSettings, SamplingSettings, ServiceTier } from "../../model/request.ts";
import { warn, type Warning } from "../../model/warnings.ts";
import { cacheMark, decodeInput } from "./decode-input.ts";
import { decodeToolChoice, decodeTools } from "./decode-tools.ts";
import { IDENTIFIER_MAX_LENGTH, INCLUDABLES, KNOWN_FIELDS, type ResponsesRequest } from "./schema.ts";

export { hashSafetyIdentifier };

/** Decodes a schema-valid body; throws GatewayError `invalid_request` (400) for the spec's semantic rules. */
export function decodeResponses(raw: Record<string, unknown>, headers: Headers): CanonicalRequest {
  const body = raw as ResponsesRequest;
  if (body.previous_response_id !== undefined && body.previous_response_id !== null) {
    throw errors.invalid(
      "previous_response_id is not supported: responses are not stored. Send the full conversation history in `input` instead.",
    );
  }
  if ((raw.store as unknown) === true) throw errors.invalid("store: true is not supported: responses are not stored. Omit store or set it to false.");
  if (body.input === undefined && !body.prompt) throw errors.invalid("input is required");
  // Background mode answers later through GET /responses/{id}; with no stored responses there is nothing to poll, and
  // answering synchronously instead would hold a client that expects an immediate `queued` reply.
  if (body.background === true) {
    throw errors.invalid(
      "background: true is not supported: the gateway stores no responses, so a background response could never be retrieved. Omit background or set it to false.",
      { param: "background" },
    );
  }

  const warnings: Warning[] = [];
  for (const key of Object.keys(raw)) {
    if (!KNOWN_FIELDS.has(key)) warn(warnings, "unknown_field", key, `unknown field ${key} was ignored`);
  }

  const input = decodeInput(body.input, warnings);
  const system: TextPart[] = [];
  if (typeof body.instructions === "string" && body.instructions !== "") system.push({ type: "text", text: body.instructions });
  system.push(...input.system);

  const safetyIdentifier = typeof body.safety_identifier === "string" ? hashSafetyIdentifier(body.safety_identifier) : undefined;
  checkInclude(body.include);
  const request: CanonicalRequest = {
    format: "responses",
    model: body.model,
    models: body.models ?? [],
    system,
    messages: input.messages,
    tools: decodeTools(body.tools, warnings),
    sampling: sampling(body),
    stream: body.stream === true,
    plugins: body.plugins ?? [],
    warnings,
    // The echo source for the result; the raw safety identifier is replaced so it is never stored or echoed.
    original: safetyIdentifier === undefined ? raw : { ...raw, safety_identifier: safetyIdentifier },
  };
  const toolChoice = decodeToolChoice(body.tool_choice, request.tools, warnings);
  if (toolChoice) request.toolChoice = toolChoice;
  if (typeof body.parallel_tool_calls === "boolean") request.parallelToolCalls = body.parallel_tool_calls;
  if (typeof body.max_output_tokens === "number") request.maxTokens = body.max_output_tokens;
  const output = outputSettings(body);
  if (output) request.output = output;
  const reasoning = reasoningSettings(body);
  if (reasoning) request.reasoning = reasoning;
  const provider = foldRoute(body.provider, body.route);
  if (provider) request.provider = provider;
  const tier = serviceTier(body.service_tier);
  if (tier) request.serviceTier = tier;
  // Spec `session_id`: the body value wins over the `x-session-id` header, which obeys the same length limit.
  const header = headers.get("x-session-id") ?? undefined;
  if (body.session_id === undefined && header !== undefined && header.length > IDENTIFIER_MAX_LENGTH) {
    throw errors.invalid(`x-session-id: at most ${IDENTIFIER_MAX_LENGTH} characters`);
  }
  const sessionId = body.session_id ?? header;
  if (sessionId !== undefined && sessionId !== "") request.sessionId = sessionId;
  if (typeof body.max_tool_calls === "number") request.maxToolCalls = body.max_tool_calls;
  if (body.stop_server_tools_when) request.stopWhen = serviceStopConditions(body.stop_server_tools_when);
  const cache = cacheSettings(body);
  if (cache) request.cache = cache;
  if (body.metadata) request.metadata = body.metadata;
  if (body.user !== undefined) request.user = body.user;
  if (safetyIdentifier !== undefined) request.safetyIdentifier = safetyIdentifier;
  if (body.trace) request.trace = body.trace;
  if (body.debug) request.debug = body.debug.echo_upstream_body === undefined ? {} : { echoUpstreamBody: body.debug.echo_upstream_body };
  if (body.modalities) request.modalities = body.modalities;
  const passthrough = passthroughFields(body);
  if (passthrough) request.passthrough = passthrough;
  return request;
}

const INCLUDE_VALUES: ReadonlySet<string> = new Set(INCLUDABLES);

/** Every `include` value the Responses API defines is accepted; anything else is a 400 naming the entry. */
function checkInclude(include: ResponsesRequest["include"]): void {
  include?.forEach((value, index) => {
    if (!INCLUDE_VALUES.has(value)) {
      throw errors.invalid(`include[${index}]: "${value}" is not an include value (one of: ${INCLUDABLES.join(", ")})`, { param: `include[${index}]` });
    }
  });
}

/**
 * Sampling settings. `include: ["message.output_text.logprobs"]` is how Responses asks for logprobs (`top_logprobs`
 * alone also does); the upstreams that can return them are asked to.
 */
function sampling(body: ResponsesRequest): SamplingSettings {
  const out: SamplingSettings = {};
  if (body.include?.includes("message.output_text.logprobs")) out.logprobs = true;
  if (typeof body.temperature === "number") out.temperature = body.temperature;
  if (typeof body.top_p === "number") out.topP = body.top_p;
  if (typeof body.top_k === "number") out.topK = body.top_k;
  if (typeof body.frequency_penalty === "number") out.frequencyPenalty = body.frequency_penalty;
  if (typeof body.presence_penalty === "number") out.presencePenalty = body.presence_penalty;
  if (typeof body.top_logprobs === "number") out.topLogprobs = body.top_logprobs;
  return out;
}

function outputSettings(body: ResponsesRequest): CanonicalRequest["output"] {
  const text = body.text;
  if (!text) return undefined;
  const out: NonNullable<CanonicalRequest["output"]> = {};
  const format = text.format;
  if (format) {
    if (format.type === "json_schema" && "schema" in format) {
      const schema: OutputFormat = { type: "json_schema", name: format.name, schema: format.schema };
      if (typeof format.strict === "boolean") schema.strict = format.strict;
      if (format.description !== undefined) schema.description = format.description;
      out.format = schema;
    } else out.format = { type: format.type === "json_object" ? "json_object" : "text" };
  }
  if (typeof text.verbosity === "string") out.verbosity = text.verbosity;
  return out.format === undefined && out.verbosity === undefined ? undefined : out;
}

function reasoningSettings(body: ResponsesRequest): ReasoningSettings | undefined {
  const config = body.reasoning;
  if (!config) return undefined;
  const out: ReasoningSettings = {};
  if (config.effort) out.effort = config.effort;
  if (config.summary) out.summary = config.summary;
  if (typeof config.enabled === "boolean") out.enabled = config.enabled;
  if (typeof config.max_tokens === "number") out.maxTokens = config.max_tokens;
  // `mode` and `context` only apply to newer OpenAI models; they travel as extras for adapters that know them.
  const extra: Record<string, unknown> = {};
  if (config.mode) extra.mode = config.mode;
  if (config.context) extra.context = config.context;
  if (Object.keys(extra).length > 0) out.extra = extra;
  return out;
}

/** Spec `service_tier`: `fast` is an alias of `priority`. */
function serviceTier(tier: ResponsesRequest["service_tier"]): ServiceTier | undefined {
  if (tier === undefined || tier === null) return undefined;
  return tier === "fast" ? "priority" : tier;
}

function cacheSettings(body: ResponsesRequest): CanonicalRequest["cache"] {
  const out: NonNullable<CanonicalRequest["cache"]> = {};
  if (body.cache_control) out.control = cacheMark(body.cache_control);
  if (typeof body.prompt_cache_key === "string") out.promptCacheKey = body.prompt_cache_key;
  if (body.prompt_cache_options) out.options = body.prompt_cache_options;
  return Object.keys(out).length === 0 ? undefined : out;
}

/**
 * Responses-only fields without a canonical home; an adapter of the same family forwards them. `prompt` is not one:
 * it names the gateway's own template (core/presets/prompt-template.ts), already rendered into the body.
 */
function passthroughFields(body: ResponsesRequest): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  if (body.include) out.include = body.include;
  if (body.image_config) out.image_config = body.image_config;
  if (body.truncation) out.truncation = body.truncation;
  return Object.keys(out).length === 0 ? undefined : out;
}
