/**
 * Reasoning in chat-completions responses (OpenRouter `reasoning_details`, or the plain `reasoning` /
 * `reasoning_content` text of vLLM, DeepSeek and Ollama) → canonical reasoning parts.
 */
import type { ReasoningPart } from "../../core/sdk/index.ts";
import type { WireMessageOut, WireReasoningDetail } from "./wire.ts";

/**
 * Structured details win over the plain text (OpenRouter sends both, with the same text). Details sharing an `id`
 * form one part (a Responses reasoning item: summary plus encrypted content); details without an id are one part
 * each (an Anthropic thinking block with its signature, or a redacted block).
 */
export function reasoningParts(message: WireMessageOut): ReasoningPart[] {
  const details = message.reasoning_details ?? [];
  if (details.length > 0) return fromDetails(details);
  const text = message.reasoning ?? message.reasoning_content;
  return typeof text === "string" && text !== "" ? [{ type: "reasoning", text }] : [];
}

function fromDetails(details: WireReasoningDetail[]): ReasoningPart[] {
  const parts: ReasoningPart[] = [];
  const byId = new Map<string, ReasoningPart>();
  for (const detail of details) {
    let part = typeof detail.id === "string" ? byId.get(detail.id) : undefined;
    if (part === undefined) {
      part = { type: "reasoning", text: "" };
      if (typeof detail.id === "string") {
        part.id = detail.id;
        byId.set(detail.id, part);
      }
      if (typeof detail.format === "string") part.format = detail.format;
      parts.push(part);
    }
    applyDetail(part, detail);
  }
  return parts;
}

/** Folds one complete detail into a part. */
function applyDetail(part: ReasoningPart, detail: WireReasoningDetail): void {
  if (typeof detail.text === "string") part.text += detail.text;
  if (typeof detail.summary === "string") (part.summary ??= []).push(detail.summary);
  if (typeof detail.data === "string") part.encrypted = (part.encrypted ?? "") + detail.data;
  if (typeof detail.signature === "string") part.signature = (part.signature ?? "") + detail.signature;
}
