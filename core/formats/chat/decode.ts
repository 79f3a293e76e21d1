/** Chat-completions body → canonical request (spec "Chat-completions request", "Limits"). */
import { foldRoute } from "../shared/route.ts";
import { hashSafetyIdentifier } from "../shared/safety-identifier.ts";
import { serviceStopConditions } from "../shared/tool-spelling.ts";
import { errors } from "../../errors.ts";
import type { CanonicalRequest, ServiceTier } from "../../model/request.ts";
import { decodeMessages } from "./decode-messages.ts";
import {
  assignDefined,
  decodeMaxTokens,
  decodeReasoning,
  decodeResponseFormat,
  decodeSampling,
  decodeToolChoice,
  decodeTools,
} from "./decode-options.ts";
import { checkMetadata } from "./metadata.ts";
import { KNOWN_FIELDS, type ChatRequest } from "./schema.ts";
import { unknownFieldWarnings } from "../shared/unknown-fields.ts";

type Output = NonNullable<CanonicalRequest["output"]>;
type Debug = NonNullable<CanonicalRequest["debug"]>;

const MAX_SESSION_ID = 256;

/**
 * Decodes a schema-valid body. Throws GatewayError `invalid_request` for the rules the schema cannot express
 * (conflicting reasoning effort, metadata rules re-checked with the offending key named, an over-long session header).
 */
export function decodeChat(body: Record<string, unknown>, headers: Headers): CanonicalRequest {
  // The edge validated `body` against ChatRequestSchema, which is what this cast relies on.
  const req = body as ChatRequest;
  const warnings = unknownFieldWarnings(body, KNOWN_FIELDS);
  const { system, messages } = decodeMessages(req.messages, warnings);
  const request: CanonicalRequest = {
    format: "chat",
    model: req.model,
    models: req.models ?? [],
    system,
    messages,
    tools: decodeTools(req.tools),
    sampling: decodeSampling(req),
    stream: req.stream === true,
    plugins: req.plugins ?? [],
    warnings,
    original: withoutRawSafetyIdentifier(body),
  };
  const format = decodeResponseFormat(req.response_format);
  const verbosity = req.verbosity ?? undefined;
  return assignDefined(request, {
    toolChoice: decodeToolChoice(req.tool_choice),
    parallelToolCalls: req.parallel_tool_calls,
    maxTokens: decodeMaxTokens(req, warnings),
    output: format || verbosity ? assignDefined<Output>({}, { format, verbosity }) : undefined,
    reasoning: decodeReasoning(req),
    includeUsage: req.stream_options?.include_usage,
    provider: foldRoute(req.provider, req.route),
    serviceTier: decodeServiceTier(req.service_tier),
    sessionId: decodeSessionId(req.session_id, headers),
    stopWhen: serviceStopConditions(req.stop_server_tools_when),
    cache: decodeCache(req),
    metadata: checkMetadata(req.metadata),
    user: req.user,
    safetyIdentifier: req.safety_identifier == null ? undefined : hashSafetyIdentifier(req.safety_identifier),
    trace: req.trace,
    debug: req.debug && assignDefined<Debug>({}, { echoUpstreamBody: req.debug.echo_upstream_body }),
    modalities: req.modalities,
    passthrough: decodePassthrough(req),
  });
}

/** `fast` is an alias of `priority` (spec "Responses request" `service_tier`). */
function decodeServiceTier(tier: ChatRequest["service_tier"]): ServiceTier | undefined {
  if (tier === undefined || tier === null) return undefined;
  return tier === "fast" ? "priority" : tier;
}

/** Body `session_id` wins over the equivalent `x-session-id` header; the header gets the same 256-char limit. */
function decodeSessionId(fromBody: string | undefined, headers: Headers): string | undefined {
  if (fromBody !== undefined) return fromBody;
  const header = headers.get("x-session-id");
  if (header === null || header === "") return undefined;
  if (header.length > MAX_SESSION_ID) {
    const message = `The x-session-id header must be at most ${MAX_SESSION_ID} characters`;
    throw errors.invalid(message, { param: "x-session-id" });
  }
  return header;
}

function decodeCache(req: ChatRequest): CanonicalRequest["cache"] {
  const cache: NonNullable<CanonicalRequest["cache"]> = assignDefined(
    {},
    {
      control: req.cache_control && { ...req.cache_control },
      promptCacheKey: req.prompt_cache_key,
      options: req.prompt_cache_options && { ...req.prompt_cache_options },
    },
  );
  return Object.keys(cache).length > 0 ? cache : undefined;
}

/** Fields with no canonical slot that a same-family adapter passes on: `prediction`, `top_a`, `image_config`, `audio`. */
function decodePassthrough(req: ChatRequest): Record<string, unknown> | undefined {
  const passthrough = assignDefined<Record<string, unknown>>(
    {},
    { prediction: req.prediction, top_a: req.top_a, image_config: req.image_config, audio: req.audio ?? undefined },
  );
  return Object.keys(passthrough).length > 0 ? passthrough : undefined;
}

/** `original` keeps the body as received except the raw safety identifier, which is replaced by its hash. */
function withoutRawSafetyIdentifier(body: Record<string, unknown>): Record<string, unknown> {
  const raw = body.safety_identifier;
  return typeof raw === "string" ? { ...body, safety_identifier: hashSafetyIdentifier(raw) } : body;
}

export { hashSafetyIdentifier };
