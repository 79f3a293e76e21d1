/**
 * Vertex AI's answers in its wire shapes. Gemini (`publishers/google`): a GenerateContentResponse with Vertex's
 * own fields (`createTime`, `responseId`, `modelVersion`, `usageMetadata.trafficType` and the per-modality token
 * details), thoughts as parts marked `thought: true`, the thought signature on the first part after them; streamed as
 * one response per SSE event, CRLF-framed, the last with the finish reason and the full usage. Claude
 * (`publishers/anthropic`): Anthropic's Message (`msg_vrtx_…` ids) and its named SSE events, `ping` included; an
 * in-band `error` event after some text when asked.
 */
import type { SseFrame } from "../fake-upstream/sse.ts";

export interface Answer {
  text?: string;
  reasoning?: string;
  toolCalls?: Array<{ id: string; name: string; arguments: Record<string, unknown> }>;
  finish: "stop" | "length" | "tool_calls";
  usage: { prompt: number; completion: number; cached?: number; reasoning?: number };
  /** Streamed: fail after the text with an in-band error instead of finishing. */
  failMidStream?: boolean;
}

export interface Identity {
  id: string;
  model: string;
}

const SIGNATURE = "CiQBVKhc7mXq2zt6fJ0AwJpUuQpT3b2lU1nHcMl5pZ8oN1x3m6kSLwFUqFzu";
const CLAUDE_SIGNATURE = "EqQBCkgIBhABGAIiQL9pA3fFv2JdV0vQ3sXoP1k7mRr+7Wq1oTHEUVmSwE2pQ9nA0c4mVz1yq8Nn0Hh5lqW7tYbHc1Zs9t1aWlD0r9ESDPmaVertexSig";

/** Text in the pieces a stream sends it in (two words each). */
function pieces(text: string): string[] {
  const words = text.split(/(?=\s)/);
  const out: string[] = [];
  for (let i = 0; i < words.length; i += 2) out.push(words.slice(i, i + 2).join(""));
  return out;
}

// ---- Gemini on Vertex ----

const GEMINI_FINISH = { stop: "STOP", length: "MAX_TOKENS", tool_calls: "STOP" } as const;

function geminiUsage(u: Answer["usage"]): Record<string, unknown> {
  const usage: Record<string, unknown> = {
    promptTokenCount: u.prompt,
    candidatesTokenCount: u.completion - (u.reasoning ?? 0),
    totalTokenCount: u.prompt + u.completion,
    trafficType: "ON_DEMAND",
    promptTokensDetails: [{ modality: "TEXT", tokenCount: u.prompt }],
    candidatesTokensDetails: [{ modality: "TEXT", tokenCount: u.completion - (u.reasoning ?? 0) }],
  };
  if (u.reasoning) usage.thoughtsTokenCount = u.reasoning;
  if (u.cached) {
    usage.cachedContentTokenCount = u.cached;
    usage.cacheTokensDetails = [{ modality: "TEXT", tokenCount: u.cached }];
  }
  return usage;
}

function geminiParts(answer: Answer): Array<Record<string, unknown>> {
  const parts: Array<Record<string, unknown>> = [];
  if (answer.reasoning !== undefined) parts.push({ text: answer.reasoning, thought: true });
  if (answer.text !== undefined) parts.push({ text: answer.text });
  for (const call of answer.toolCalls ?? []) parts.push({ functionCall: { name: call.name, args: call.arguments } });
  // The signature rides on the first part after the thoughts (the call, else the text).
  if (answer.reasoning !== undefined && parts[1] !== undefined) parts[1].thoughtSignature = SIGNATURE;
  return parts;
}

const geminiMeta = (who: Identity) => ({ modelVersion: who.model, createTime: "2026-12-07T12:00:00.000000Z", responseId: who.id });

export function geminiResponse(answer: Answer, who: Identity): Record<string, unknown> {
  return {
    candidates: [{ content: { role: "model", parts: geminiParts(answer) }, finishReason: GEMINI_FINISH[answer.finish], avgLogprobs: -0.12 }],
    usageMetadata: geminiUsage(answer.usage),
    ...geminiMeta(who),
  };
}

export function geminiFrames(answer: Answer, who: Identity): SseFrame[] {
  const frames: SseFrame[] = [];
  const chunk = (parts: Array<Record<string, unknown>>, last: boolean): SseFrame => ({
    data: {
      candidates: [{ content: { role: "model", parts }, ...(last ? { finishReason: GEMINI_FINISH[answer.finish] } : {}) }],
      usageMetadata: last ? geminiUsage(answer.usage) : { trafficType: "ON_DEMAND" },
      ...geminiMeta(who),
    },
  });
  const parts = geminiParts(answer);
  const textParts: Array<Record<string, unknown>> = [];
  for (const part of parts) {
    if (typeof part.text === "string" && part.thought !== true) {
      const split = pieces(part.text);
      split.forEach((piece, i) => textParts.push(i === 0 && part.thoughtSignature ? { text: piece, thoughtSignature: part.thoughtSignature } : { text: piece }));
    } else textParts.push(part);
  }
  if (answer.failMidStream) {
    for (const part of textParts) frames.push(chunk([part], false));
    frames.push({ data: { error: { code: 503, message: "The service is currently unavailable.", status: "UNAVAILABLE" } } });
    return frames;
  }
  textParts.forEach((part, i) => frames.push(chunk([part], i === textParts.length - 1)));
  if (textParts.length === 0) frames.push(chunk([{ text: "" }], true));
  return frames;
}

// ---- Claude on Vertex ----

const CLAUDE_STOP = { stop: "end_turn", length: "max_tokens", tool_calls: "tool_use" } as const;

function claudeUsage(u: Answer["usage"], output: number): Record<string, unknown> {
  return { input_tokens: u.prompt - (u.cached ?? 0), cache_creation_input_tokens: 0, cache_read_input_tokens: u.cached ?? 0, output_tokens: output };
}

function claudeContent(answer: Answer): Array<Record<string, unknown>> {
  const content: Array<Record<string, unknown>> = [];
  if (answer.reasoning !== undefined) content.push({ type: "thinking", thinking: answer.reasoning, signature: CLAUDE_SIGNATURE });
  if (answer.text !== undefined) content.push({ type: "text", text: answer.text });
  for (const call of answer.toolCalls ?? []) content.push({ type: "tool_use", id: call.id, name: call.name, input: call.arguments });
  return content;
}

export function claudeMessage(answer: Answer, who: Identity): Record<string, unknown> {
  return {
    id: who.id,
    type: "message",
    role: "assistant",
    model: who.model,
    content: claudeContent(answer),
    stop_reason: CLAUDE_STOP[answer.finish],
    stop_sequence: null,
    usage: claudeUsage(answer.usage, answer.usage.completion),
  };
}

export function claudeFrames(answer: Answer, who: Identity): SseFrame[] {
  const frames: SseFrame[] = [
    { data: { type: "message_start", message: { id: who.id, type: "message", role: "assistant", model: who.model, content: [], stop_reason: null, stop_sequence: null, usage: claudeUsage(answer.usage, 1) } } },
    { data: { type: "ping" } },
  ];
  claudeContent(answer).forEach((block, index) => {
    if (block.type === "thinking") {
      frames.push({ data: { type: "content_block_start", index, content_block: { type: "thinking", thinking: "", signature: "" } } });
      for (const piece of pieces(block.thinking as string)) frames.push({ data: { type: "content_block_delta", index, delta: { type: "thinking_delta", thinking: piece } } });
      frames.push({ data: { type: "content_block_delta", index, delta: { type: "signature_delta", signature: block.signature } } });
    } else if (block.type === "text") {
      frames.push({ data: { type: "content_block_start", index, content_block: { type: "text", text: "" } } });
      for (const piece of pieces(block.text as string)) frames.push({ data: { type: "content_block_delta", index, delta: { type: "text_delta", text: piece } } });
    } else {
      frames.push({ data: { type: "content_block_start", index, content_block: { type: "tool_use", id: block.id, name: block.name, input: {} } } });
      const json = JSON.stringify(block.input);
      const half = Math.floor(json.length / 2);
      frames.push({ data: { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: json.slice(0, half) } } });
      frames.push({ data: { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: json.slice(half) } } });
    }
    if (answer.failMidStream) return;
    frames.push({ data: { type: "content_block_stop", index } });
  });
  if (answer.failMidStream) {
    frames.push({ data: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } } });
    return frames;
  }
  frames.push({ data: { type: "message_delta", delta: { stop_reason: CLAUDE_STOP[answer.finish], stop_sequence: null }, usage: { output_tokens: answer.usage.completion } } });
  frames.push({ data: { type: "message_stop" } });
  return frames;
}
