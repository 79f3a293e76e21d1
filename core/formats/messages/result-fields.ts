/**
 * Messages result fields shared by the body encoder and the stream encoder (spec "Messages result"): stop reason,
 * stop details, usage, citations, tool input and the Anthropic error type, so `stream` and `encode(collect(stream))`
 * can never disagree.
 */
import type { ErrorType } from "../../errors.ts";
import type { Finish } from "../../model/response.ts";
import type { Cost, Usage } from "../../model/usage.ts";

/** The spec's `stop_reason` values. */
export const STOP_REASONS = [
  "end_turn",
  "max_tokens",
  "model_context_window_exceeded",
  "stop_sequence",
  "tool_use",
  "pause_turn",
  "refusal",
  "compaction",
] as const;

export type StopReason = (typeof STOP_REASONS)[number];

const STOP_REASON_SET: ReadonlySet<string> = new Set(STOP_REASONS);

/** Unified finish → `stop_reason`; an upstream value that already is a Messages stop reason wins (raw fidelity). */
export function stopReasonOf(finish: Finish): StopReason | null {
  if (finish.raw !== undefined && STOP_REASON_SET.has(finish.raw)) return finish.raw as StopReason;
  switch (finish.reason) {
    case "stop":
      return finish.stopSequence ? "stop_sequence" : "end_turn";
    case "length":
      return "max_tokens";
    case "tool_calls":
      return "tool_use";
    case "refusal":
    case "content_filter":
      return "refusal";
    case "pause":
      return "pause_turn";
    case "context_window":
      return "model_context_window_exceeded";
    case "other":
      return "end_turn";
    case "error":
      return null;
  }
}

/** `stop_sequence`: the matched sequence, only when generation stopped on it. */
export function stopSequenceOf(finish: Finish, reason: StopReason | null): string | null {
  return reason === "stop_sequence" ? (finish.stopSequence ?? null) : null;
}

/**
 * `stop_details`: a refusal object when the model refused. The upstream's own category and explanation win (an
 * Anthropic upstream names them); otherwise the category is unknown and the refusal text, if any, explains it.
 */
export function stopDetailsOf(reason: StopReason | null, explanation: string | undefined, upstream?: Finish["refusal"]): Record<string, unknown> | null {
  if (reason !== "refusal") return null;
  if (upstream !== undefined) return { type: "refusal", category: upstream.category, explanation: upstream.explanation ?? (explanation || null) };
  return { type: "refusal", category: null, explanation: explanation || null };
}

/** Anthropic's per-TTL split of cache writes, when the upstream reported it; else everything counts as 5-minute. */
function cacheCreationOf(usage: Usage): { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number } {
  const raw = usage.raw;
  if (typeof raw === "object" && raw !== null) {
    const split = (raw as Record<string, unknown>).cache_creation;
    if (typeof split === "object" && split !== null) {
      const s = split as Record<string, unknown>;
      const fiveMin = s.ephemeral_5m_input_tokens;
      const oneHour = s.ephemeral_1h_input_tokens;
      if (typeof fiveMin === "number" && typeof oneHour === "number") {
        return { ephemeral_5m_input_tokens: fiveMin, ephemeral_1h_input_tokens: oneHour };
      }
    }
  }
  return { ephemeral_5m_input_tokens: usage.input.cacheWrite, ephemeral_1h_input_tokens: 0 };
}

/** `input_tokens` the way Anthropic counts it: excluding cache reads and writes. */
export function uncachedInputTokens(usage: Usage): number {
  return Math.max(0, usage.input.total - usage.input.cacheRead - usage.input.cacheWrite);
}

/** A counter's value, 0 when absent. */
function counter(tools: Record<string, number>, key: string): number {
  const value = tools[key];
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

/**
 * `server_tool_use` (Anthropic's `ServerToolUsage`): exactly its two required counters, 0 when a key is
 * missing; null when no server tool ran. The agent loop's own counters have no place in it.
 */
function serverToolUseOf(usage: Usage): { web_search_requests: number; web_fetch_requests: number } | null {
  const tools = usage.serverTools;
  if (!tools || Object.keys(tools).length === 0) return null;
  return { web_search_requests: counter(tools, "web_search_requests"), web_fetch_requests: counter(tools, "web_fetch_requests") };
}

/**
 * Anthropic's `usage.service_tier` (`standard`, `priority`, `batch`) for the tier the upstream reported: Anthropic's
 * own value passes through, OpenAI's `priority` is the same thing, every other tier (`default`, `flex`, …) is standard.
 */
export function serviceTierOf(upstreamTier: string | undefined): string {
  return upstreamTier === "priority" || upstreamTier === "batch" ? upstreamTier : "standard";
}

/** The result `usage` object. */
export function usageOf(usage: Usage, cost: Cost | undefined, upstreamTier?: string): Record<string, unknown> {
  const out: Record<string, unknown> = {
    input_tokens: uncachedInputTokens(usage),
    cache_creation_input_tokens: usage.input.cacheWrite,
    cache_read_input_tokens: usage.input.cacheRead,
    cache_creation: cacheCreationOf(usage),
    output_tokens: usage.output.total,
    output_tokens_details: usage.output.reasoning > 0 ? { thinking_tokens: usage.output.reasoning } : null,
    server_tool_use: serverToolUseOf(usage),
    service_tier: serviceTierOf(upstreamTier),
    inference_geo: null,
  };
  if (cost !== undefined) Object.assign(out, costFields(cost));
  return out;
}

/** `cost` and `cost_details`, named as the peer's Messages usage names them (as chat). */
function costFields(cost: Cost): { cost: number; cost_details: Record<string, number | null> } {
  return {
    cost: cost.total,
    cost_details: { upstream_inference_cost: cost.upstream, upstream_inference_prompt_cost: cost.input, upstream_inference_completions_cost: cost.output },
  };
}

/** `message_delta.usage`: cumulative totals (Anthropic's SDK overwrites its snapshot with these). */
export function deltaUsageOf(usage: Usage, cost: Cost | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {
    input_tokens: uncachedInputTokens(usage),
    cache_creation_input_tokens: usage.input.cacheWrite,
    cache_read_input_tokens: usage.input.cacheRead,
    output_tokens: usage.output.total,
    output_tokens_details: usage.output.reasoning > 0 ? { thinking_tokens: usage.output.reasoning } : null,
    server_tool_use: serverToolUseOf(usage),
  };
  if (cost !== undefined) Object.assign(out, costFields(cost));
  return out;
}

/** Anthropic's own citation kinds, passed through untouched. */
const CITATION_TYPES: ReadonlySet<string> = new Set([
  "char_location",
  "page_location",
  "content_block_location",
  "web_search_result_location",
  "search_result_location",
]);

/**
 * Text annotations → Messages citations. Anthropic citations pass as is; OpenAI `url_citation`s become
 * `web_search_result_location` (cited text sliced from the block); anything else is dropped and counted.
 */
export function citationsOf(annotations: readonly unknown[] | undefined, text: string): { citations: unknown[] | null; dropped: number } {
  if (!annotations?.length) return { citations: null, dropped: 0 };
  const citations: unknown[] = [];
  let dropped = 0;
  for (const annotation of annotations) {
    const a = typeof annotation === "object" && annotation !== null ? (annotation as Record<string, unknown>) : undefined;
    if (a && typeof a.type === "string" && CITATION_TYPES.has(a.type)) citations.push(annotation);
    else if (a?.type === "url_citation" && typeof a.url === "string") {
      const start = typeof a.start_index === "number" ? a.start_index : 0;
      const end = typeof a.end_index === "number" ? a.end_index : text.length;
      citations.push({ type: "web_search_result_location", url: a.url, title: typeof a.title === "string" ? a.title : null, cited_text: text.slice(start, end), encrypted_index: "" });
    } else dropped++;
  }
  return { citations: citations.length > 0 ? citations : null, dropped };
}

/** Tool arguments (JSON text) → `input`. Anthropic requires an object: anything else becomes `{}` (`valid: false`). */
export function toolInputOf(args: string): { input: Record<string, unknown>; valid: boolean } {
  if (args.trim() === "") return { input: {}, valid: true };
  try {
    const value: unknown = JSON.parse(args);
    if (typeof value === "object" && value !== null && !Array.isArray(value)) return { input: value as Record<string, unknown>, valid: true };
  } catch {
    // fall through: not JSON
  }
  return { input: {}, valid: false };
}

/** Canonical error type → Anthropic `error.type` (what Anthropic clients switch on). */
export function anthropicErrorType(type: ErrorType): string {
  switch (type) {
    case "authentication":
      return "authentication_error";
    case "permission_denied":
      return "permission_error";
    case "not_found":
    case "image_not_found":
      return "not_found_error";
    case "payload_too_large":
      return "request_too_large";
    case "rate_limit_exceeded":
      return "rate_limit_error";
    case "provider_overloaded":
      return "overloaded_error";
    case "payment_required":
      return "billing_error";
    case "timeout":
      return "timeout_error";
    case "server":
    case "unmapped":
    case "provider_unavailable":
      return "api_error";
    default:
      return "invalid_request_error";
  }
}
