/**
 * A simulator plan rendered in the OpenAI chat-completions wire format (the HTTP simulator's encoder). The shapes are
 * declared here, as what this server writes, not borrowed from the `openai` adapter's reading of them: the adapter
 * is checked against this server (test/conformance/adapters.test.ts), not typed to agree with it.
 */
import type { SimPiece, SimPlan } from "./engine.ts";

/** Usage as OpenAI reports it, reasoning and cache details included. */
export interface WireUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number };
  completion_tokens_details: { reasoning_tokens: number };
}

/** A choice of a completion (`message`) or of a chunk (`delta`). */
interface WireChoice {
  index: number;
  message?: Record<string, unknown>;
  delta?: Record<string, unknown>;
  finish_reason: string | null;
  logprobs: null;
}

/** A non-streaming `chat.completion`, and equally one `chat.completion.chunk`. */
export interface ChatCompletion {
  id: string;
  object: "chat.completion" | "chat.completion.chunk";
  created: number;
  model: string;
  choices: WireChoice[];
  usage?: WireUsage;
  system_fingerprint: string;
}

/** What every body of one reply shares. */
export interface ChatIdentity {
  model: string;
  /** Unix seconds. */
  created: number;
}

/** Usage as OpenAI reports it, reasoning and cache details included. */
export function wireUsage(plan: SimPlan): WireUsage {
  const { promptTokens, completionTokens, reasoningTokens } = plan.usage;
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    prompt_tokens_details: { cached_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: reasoningTokens },
  };
}

/** The non-streaming `chat.completion` body. */
export function completionBody(plan: SimPlan, identity: ChatIdentity): ChatCompletion {
  const message: Record<string, unknown> = { role: "assistant", content: plan.toolCall ? null : plan.text, refusal: null };
  if (plan.reasoning !== "") message.reasoning = plan.reasoning;
  if (plan.toolCall) {
    message.tool_calls = [{ id: plan.toolCall.id, type: "function", function: { name: plan.toolCall.name, arguments: plan.toolCall.arguments } }];
  }
  return {
    id: plan.id,
    object: "chat.completion",
    created: identity.created,
    model: identity.model,
    choices: [{ index: 0, message, finish_reason: plan.finishReason, logprobs: null }],
    usage: wireUsage(plan),
    system_fingerprint: "fp_simulator",
  };
}

/** One `chat.completion.chunk`; `first` adds the assistant role, as OpenAI's first chunk does. */
export function pieceChunk(plan: SimPlan, identity: ChatIdentity, piece: SimPiece, first: boolean): ChatCompletion {
  const delta: Record<string, unknown> = first ? { role: "assistant" } : {};
  switch (piece.kind) {
    case "reasoning":
      delta.reasoning = piece.text;
      break;
    case "text":
      delta.content = piece.text;
      break;
    case "tool-start":
      delta.tool_calls = [{ index: 0, id: piece.id, type: "function", function: { name: piece.name, arguments: "" } }];
      break;
    case "tool-args":
      delta.tool_calls = [{ index: 0, function: { arguments: piece.text } }];
      break;
  }
  return chunk(plan, identity, [{ index: 0, delta, finish_reason: null, logprobs: null }]);
}

/** The chunk carrying the finish reason (its delta is empty unless nothing was streamed before). */
export function finishChunk(plan: SimPlan, identity: ChatIdentity, first: boolean): ChatCompletion {
  const delta = first ? { role: "assistant", content: "" } : {};
  return chunk(plan, identity, [{ index: 0, delta, finish_reason: plan.finishReason, logprobs: null }]);
}

/** The usage-only chunk sent when `stream_options.include_usage` is set (empty `choices`). */
export function usageChunk(plan: SimPlan, identity: ChatIdentity): ChatCompletion {
  return { ...chunk(plan, identity, []), usage: wireUsage(plan) };
}

function chunk(plan: SimPlan, identity: ChatIdentity, choices: ChatCompletion["choices"]): ChatCompletion {
  return { id: plan.id, object: "chat.completion.chunk", created: identity.created, model: identity.model, system_fingerprint: "fp_simulator", choices };
}
