/**
 * The Responses result object (spec "Responses result"): status, timestamps, output items, request echoes, usage
 * with cost, error / `error_type`, `service_metadata`. Used for the non-streaming body and for the `response` field
 * of the lifecycle stream events (`response.created` … `response.completed` / `incomplete` / `failed`).
 */
import type { ErrorType } from "../../errors.ts";
import type { CanonicalRequest } from "../../model/request.ts";
import type { CanonicalResponse, FinishReason, ResponseError } from "../../model/response.ts";
import type { Cost, Usage } from "../../model/usage.ts";
import { trailerMetadata } from "../shared/trailer-metadata.ts";
import type { EncodeContext } from "../format.ts";
import { serverToolUseDetails } from "../shared/server-tool-usage.ts";
import { outputItems, summaryAsked } from "./output-items.ts";
import { clientSpelling } from "../shared/tool-spelling.ts";

/** Result `service_tier` values (spec; `fast` is reported as `priority`). */
const RESULT_TIERS: ReadonlySet<string> = new Set(["auto", "default", "flex", "priority", "scale", "ultrafast"]);

/**
 * `incomplete_details.reason` per unified finish reason; other reasons complete normally. An upstream refusal stop
 * (Anthropic `refusal`) is the model's safety stop, which Responses reports as a content filter (as chat does), and a
 * full context window (Anthropic `model_context_window_exceeded`) cut the output short, as max_output_tokens does.
 */
const INCOMPLETE_REASONS: Partial<Record<FinishReason, string>> = {
  length: "max_output_tokens",
  context_window: "max_output_tokens",
  content_filter: "content_filter",
  refusal: "content_filter",
};

/** Failed-response `error.code` strings per canonical type; everything else is `server_error`. */
const ERROR_CODES: Partial<Record<ErrorType, string>> = {
  rate_limit_exceeded: "rate_limit_exceeded",
  invalid_prompt: "invalid_prompt",
  invalid_image: "invalid_image",
  image_too_large: "image_too_large",
  image_too_small: "image_too_small",
  unsupported_image_format: "unsupported_image_media_type",
  image_not_found: "image_file_not_found",
  image_download_failed: "failed_to_download_image",
};

/** The echoed request fields; `null` where the request did not send one (spec "Responses result"). */
export function echoes(request: CanonicalRequest, upstreamTier?: string): Record<string, unknown> {
  const original = request.original;
  const echo = (key: string): unknown => original[key] ?? null;
  const tier = upstreamTier !== undefined && RESULT_TIERS.has(upstreamTier) ? upstreamTier : (request.serviceTier ?? null);
  return {
    instructions: echo("instructions"),
    max_output_tokens: echo("max_output_tokens"),
    metadata: echo("metadata"),
    temperature: echo("temperature"),
    top_p: echo("top_p"),
    frequency_penalty: echo("frequency_penalty"),
    presence_penalty: echo("presence_penalty"),
    // Not nullable in the result: the defaults the request implied (OpenAI's own defaults).
    parallel_tool_calls: original.parallel_tool_calls ?? true,
    tool_choice: original.tool_choice ?? "auto",
    tools: original.tools ?? [],
    service_tier: tier,
    prompt: echo("prompt"),
    prompt_cache_options: echo("prompt_cache_options"),
    reasoning: echo("reasoning"),
    // OpenAI echoes the default it applied when the request sent none (the peer SDK requires an object here).
    text: original.text ?? { format: { type: "text" } },
  };
}

/**
 * Usage object with cost (spec "Usage object"). `input.total` already includes cached tokens. Server-tool counters
 * appear as `server_tool_use_details` when the request ran any.
 */
export function usageObject(usage: Usage, cost: Cost | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {
    input_tokens: usage.input.total,
    input_tokens_details: { cached_tokens: usage.input.cacheRead },
    output_tokens: usage.output.total,
    output_tokens_details: { reasoning_tokens: usage.output.reasoning },
    total_tokens: usage.input.total + usage.output.total,
    cost: cost?.total ?? 0,
    cost_details: {
      upstream_inference_cost: cost?.upstream ?? null,
      upstream_inference_input_cost: cost?.input ?? 0,
      upstream_inference_output_cost: cost?.output ?? 0,
    },
  };
  const details = serverToolUseDetails(usage);
  if (details) out.server_tool_use_details = details;
  return out;
}

/** Failed-response `error` object; server-side failures keep no details (a 500 never echoes internals). */
export function errorObject(error: ResponseError): Record<string, unknown> {
  const internal = error.type === "server" || error.type === "unmapped";
  const metadata = internal ? { error_type: error.type } : { ...error.metadata, error_type: error.type };
  return { code: ERROR_CODES[error.type] ?? "server_error", message: error.message, metadata };
}

/** Terminal status of a response, and the stream event type that announces it. */
export function terminalStatus(response: CanonicalResponse): {
  status: "completed" | "incomplete" | "failed";
  event: "response.completed" | "response.incomplete" | "response.failed";
  incompleteReason?: string;
} {
  if (response.error) return { status: "failed", event: "response.failed" };
  const reason = INCOMPLETE_REASONS[response.finish.reason];
  if (reason) return { status: "incomplete", event: "response.incomplete", incompleteReason: reason };
  return { status: "completed", event: "response.completed" };
}

/** The full result for a finished (completed, incomplete or failed) response. */
export function resultObject(response: CanonicalResponse, ctx: EncodeContext, cost = response.cost): Record<string, unknown> {
  const terminal = terminalStatus(response);
  const result: Record<string, unknown> = {
    id: ctx.generationId,
    object: "response",
    created_at: response.created,
    // The canonical response has no completion time when it came from a stream; the encoder is the last to know.
    // A failed response ended too: the spec types `completed_at` as an integer, never null, once it is terminal.
    completed_at: response.completed ?? Math.floor(Date.now() / 1000),
    status: terminal.status,
    model: response.model || (ctx.request.model ?? ""),
    output: outputItems(response.parts, {
      generationId: ctx.generationId,
      messageStatus: terminal.status === "completed" ? "completed" : "incomplete",
      summaryAsked: summaryAsked(ctx.request),
      shownAs: (type) => clientSpelling(ctx.request, type),
      ...(response.logprobs ? { logprobs: response.logprobs } : {}),
    }),
    error: response.error ? errorObject(response.error) : null,
    incomplete_details: terminal.incompleteReason ? { reason: terminal.incompleteReason } : null,
    ...echoes(ctx.request, response.serviceTier),
    usage: usageObject(response.usage, cost),
  };
  if (response.error) result.error_type = response.error.type;
  if (response.alignment) result.alignment = response.alignment;
  const metadata = trailerMetadata(ctx.trailer, ctx.request.warnings);
  if (metadata) result.service_metadata = metadata;
  return result;
}

/** The object carried by `response.created` / `response.in_progress`: nothing produced yet. */
export function inProgressObject(ctx: EncodeContext, start: { model: string; created: number; serviceTier?: string }): Record<string, unknown> {
  return {
    id: ctx.generationId,
    object: "response",
    created_at: start.created,
    completed_at: null,
    status: "in_progress",
    model: start.model || (ctx.request.model ?? ""),
    output: [],
    error: null,
    incomplete_details: null,
    ...echoes(ctx.request, start.serviceTier),
    usage: null,
  };
}
