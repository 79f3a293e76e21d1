/**
 * Messages request body → canonical request (spec "Messages request", "Limits"). Enforces the spec's
 * semantic 400 rules (fallback list: at most 3 entries of only `model`, never with `models`) and records what it
 * cannot carry as warnings.
 */
import { errors } from "../../errors.ts";
import { ANTHROPIC_BETA_PASSTHROUGH, ANTHROPIC_PASSTHROUGH } from "../../model/anthropic-names.ts";
import { foldRoute } from "../shared/route.ts";
import { isServiceSpelling, serviceType, serviceStopConditions } from "../shared/tool-spelling.ts";
import type { CanonicalRequest, OutputFormat, ReasoningSettings, SamplingSettings, ServiceTier, Tool, ToolChoice } from "../../model/request.ts";
import { warn, type Warning } from "../../model/warnings.ts";
import { assignDefined } from "../chat/decode-options.ts";
import { decodeConversation } from "./decode-content.ts";
import { ANTHROPIC_ONLY_FIELDS, KNOWN_FIELDS, type MessagesRequest } from "./schema.ts";
import { unknownFieldWarnings } from "../shared/unknown-fields.ts";

const MAX_FALLBACKS = 3;
const MAX_SESSION_ID = 256;

/** Decodes a schema-valid body; throws GatewayError `invalid_request` on the spec's 400 rules. */
export function decodeMessagesRequest(body: Record<string, unknown>, headers: Headers): CanonicalRequest {
  const req = body as MessagesRequest;
  const warnings = unknownFieldWarnings(body, KNOWN_FIELDS);
  const { system, messages } = decodeConversation(req.system, req.messages, warnings);
  const request: CanonicalRequest = {
    format: "messages",
    model: req.model,
    models: fallbackModels(req),
    system,
    messages,
    tools: decodeTools(req.tools),
    sampling: decodeSampling(req),
    stream: req.stream ?? false,
    plugins: (req.plugins ?? []).map((plugin) => ({ ...plugin })),
    warnings,
    original: body,
  };
  const choice = decodeToolChoice(req.tool_choice);
  const format = req.output_config?.format;
  return assignDefined(request, {
    toolChoice: choice,
    parallelToolCalls: req.tool_choice?.disable_parallel_tool_use === true ? false : undefined,
    maxTokens: req.max_tokens,
    output: format ? { format: outputFormat(format) } : undefined,
    reasoning: decodeReasoning(req),
    provider: foldRoute(req.provider, req.route),
    speed: req.speed,
    serviceTier: serviceTierOf(req.service_tier),
    sessionId: sessionIdOf(req, headers),
    stopWhen: serviceStopConditions(req.stop_server_tools_when),
    cache: req.cache_control ? { control: { ...req.cache_control } } : undefined,
    user: userOf(req, warnings),
    trace: req.trace,
    debug: req.debug?.echo_upstream_body !== undefined ? { echoUpstreamBody: req.debug.echo_upstream_body } : undefined,
    passthrough: passthroughOf(body, headers),
  });
}

/** `fallbacks` (≤ 3 entries of only `model`, never with `models`) or `models` → the canonical fallback list. */
function fallbackModels(req: MessagesRequest): string[] {
  const fallbacks = req.fallbacks;
  if (fallbacks === undefined) return req.models ?? [];
  if (req.models !== undefined) throw errors.invalid("`fallbacks` cannot be combined with `models`", { param: "fallbacks" });
  if (fallbacks.length > MAX_FALLBACKS) {
    throw errors.invalid(`\`fallbacks\` accepts at most ${MAX_FALLBACKS} entries`, { param: "fallbacks" });
  }
  return fallbacks.map((entry, i) => {
    // The edge schema already rejects extra keys; decode is also called without it (batches, presets).
    const extra = Object.keys(entry).find((key) => key !== "model");
    if (extra !== undefined) throw errors.invalid(`\`fallbacks[${i}]\` accepts only \`model\` (got \`${extra}\`)`, { param: `fallbacks[${i}]` });
    return entry.model;
  });
}

type FunctionTool = Extract<Tool, { kind: "function" }>;
type ServerTool = Extract<Tool, { kind: "server" }>;

/**
 * Client tools (with `input_schema`) are functions; `service:*` (or the peer's `openrouter:*`) and Anthropic's typed
 * tools are server tools.
 */
function decodeTools(tools: MessagesRequest["tools"]): Tool[] {
  return (tools ?? []).map((tool): Tool => {
    if ("input_schema" in tool) {
      return assignDefined<FunctionTool>(
        { kind: "function", name: tool.name, parameters: tool.input_schema },
        {
          description: tool.description,
          strict: tool.strict,
          deferLoading: tool.defer_loading,
          cache: tool.cache_control ? { ...tool.cache_control } : undefined,
        },
      );
    }
    const { type, parameters, ...rest } = tool;
    if (isServiceSpelling(type)) {
      const ours = serviceType(type);
      const deferred = (rest as Record<string, unknown>).defer_loading;
      const deferLoading = typeof deferred === "boolean" ? deferred : undefined;
      return assignDefined<ServerTool>({ kind: "server", type: ours }, { parameters, spelling: ours === type ? undefined : type, deferLoading });
    }
    // An Anthropic typed tool keeps its own fields (name, max_uses, defer_loading …) as parameters so the adapter can
    // rebuild it.
    return { kind: "server", type, parameters: { ...rest, ...parameters } };
  });
}

function decodeToolChoice(choice: MessagesRequest["tool_choice"]): ToolChoice | undefined {
  if (choice === undefined) return undefined;
  switch (choice.type) {
    case "auto":
    case "none":
      return { type: choice.type };
    case "any":
      return { type: "required" };
    case "tool":
      if (!choice.name) throw errors.invalid("`tool_choice.name` is required when `tool_choice.type` is `tool`", { param: "tool_choice.name" });
      return choice.disable_parallel_tool_use === undefined
        ? { type: "tool", name: choice.name }
        : { type: "tool", name: choice.name, disableParallel: choice.disable_parallel_tool_use };
  }
}

function decodeSampling(req: MessagesRequest): SamplingSettings {
  return assignDefined<SamplingSettings>(
    {},
    { temperature: req.temperature, topP: req.top_p, topK: req.top_k, stop: req.stop_sequences },
  );
}

/** `thinking` and `output_config.effort` → one reasoning setting (enabled + budget, or adaptive via `extra`). */
function decodeReasoning(req: MessagesRequest): ReasoningSettings | undefined {
  const thinking = req.thinking;
  const effort = req.output_config?.effort ?? undefined;
  if (thinking === undefined && effort === undefined) return undefined;
  const settings: ReasoningSettings = {};
  if (effort !== undefined) settings.effort = effort;
  if (thinking === undefined) return settings;
  if (thinking.type === "disabled") {
    settings.enabled = false;
    return settings;
  }
  settings.enabled = true;
  const extra: Record<string, unknown> = {};
  if (thinking.type === "enabled") settings.maxTokens = thinking.budget_tokens;
  else extra.type = "adaptive";
  if (thinking.display) extra.display = thinking.display;
  if (Object.keys(extra).length > 0) settings.extra = extra;
  return settings;
}

function outputFormat(format: NonNullable<NonNullable<MessagesRequest["output_config"]>["format"]>): OutputFormat {
  // Anthropic's format has no name; OpenAI-style upstreams require one.
  return { type: "json_schema", name: format.name ?? "response", schema: format.schema };
}

function serviceTierOf(tier: MessagesRequest["service_tier"]): ServiceTier | undefined {
  if (tier === undefined) return undefined;
  return tier === "auto" ? "auto" : "default";
}

/** Body `session_id` wins over the `x-session-id` header (spec "Responses request" `session_id`). */
function sessionIdOf(req: MessagesRequest, headers: Headers): string | undefined {
  if (req.session_id !== undefined) return req.session_id;
  const header = headers.get("x-session-id")?.trim();
  if (!header) return undefined;
  if (header.length > MAX_SESSION_ID) throw errors.invalid(`\`x-session-id\` must be at most ${MAX_SESSION_ID} characters`, { param: "x-session-id" });
  return header;
}

/** `user`, else Anthropic's `metadata.user_id` (the same end-user identifier under Anthropic's name). */
function userOf(req: MessagesRequest, warnings: Warning[]): string | undefined {
  const metadata = req.metadata ?? {};
  for (const key of Object.keys(metadata)) {
    if (key !== "user_id") warn(warnings, "unknown_field", `metadata.${key}`, `Unknown field \`metadata.${key}\` was ignored`);
  }
  const fromMetadata = metadata.user_id ?? undefined;
  if (req.user !== undefined && fromMetadata !== undefined && req.user !== fromMetadata) {
    warn(warnings, "conflicting_field", "metadata.user_id", "`user` was used; `metadata.user_id` was ignored");
  }
  return req.user ?? fromMetadata;
}

/** Anthropic-only fields and the client's `anthropic-beta` header, for a native Anthropic upstream. */
function passthroughOf(body: Record<string, unknown>, headers: Headers): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  const anthropic: Record<string, unknown> = {};
  for (const key of ANTHROPIC_ONLY_FIELDS) {
    if (body[key] !== undefined && body[key] !== null) anthropic[key] = body[key];
  }
  if (Object.keys(anthropic).length > 0) out[ANTHROPIC_PASSTHROUGH] = anthropic;
  const betas = (headers.get("anthropic-beta") ?? "").split(",").map((beta) => beta.trim()).filter((beta) => beta !== "");
  if (betas.length > 0) out[ANTHROPIC_BETA_PASSTHROUGH] = betas;
  return Object.keys(out).length > 0 ? out : undefined;
}
