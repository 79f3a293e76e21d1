/** Canonical reasoning parts → chat `reasoning_details` items (spec "Chat-completions result body"). */
import type { ReasoningPart } from "../../model/parts.ts";

/** Fields every detail item carries: the upstream item id (when known), its family, and its position in the list. */
interface DetailCommon {
  id?: string;
  format: string;
  index: number;
}

/**
 * The family of reasoning no upstream named (the openai adapter's plain `reasoning` text, the simulator): OpenRouter's
 * own value for it. Every item carries a `format`, because the OpenRouter AI SDK provider keeps — and sends back on the
 * next turn — only items that have one. Decoding reads it back as "no family" (decode-messages.ts).
 */
export const UNKNOWN_REASONING_FORMAT = "unknown";

/** One `reasoning_details` item; `index` identifies the item across stream deltas. */
export type ReasoningDetailOut =
  | (DetailCommon & { type: "reasoning.text"; text: string; signature?: string })
  | (DetailCommon & { type: "reasoning.summary"; summary: string })
  | (DetailCommon & { type: "reasoning.encrypted"; data: string });

/** The `id`/`format` a part's items share: the id when known (never invented), the family or `unknown`. */
export function detailCommon(part: { id?: string; format?: string }, index: number): DetailCommon {
  const common: DetailCommon = { index, format: part.format ?? UNKNOWN_REASONING_FORMAT };
  if (part.id !== undefined) common.id = part.id;
  return common;
}

/**
 * Items in a fixed per-part order — text (with its signature), summaries, then encrypted / redacted data — which is
 * also the order the stream encoder numbers them in, so streamed and non-streamed bodies agree.
 */
export function encodeReasoningDetails(parts: readonly ReasoningPart[]): ReasoningDetailOut[] {
  const out: ReasoningDetailOut[] = [];
  for (const part of parts) {
    if (part.text !== "" || part.signature !== undefined) {
      const item: ReasoningDetailOut = { type: "reasoning.text", text: part.text, ...detailCommon(part, out.length) };
      if (part.signature !== undefined) item.signature = part.signature;
      out.push(item);
    }
    for (const summary of part.summary ?? []) {
      out.push({ type: "reasoning.summary", summary, ...detailCommon(part, out.length) });
    }
    // Anthropic's redacted_thinking travels as an encrypted item tagged with its format; decode maps it back.
    for (const data of [part.encrypted, part.redacted]) {
      if (data !== undefined) out.push({ type: "reasoning.encrypted", data, ...detailCommon(part, out.length) });
    }
  }
  return out;
}

/** The plain `reasoning` string: all reasoning and summary text joined, or null when there is none. */
export function reasoningText(parts: readonly ReasoningPart[]): string | null {
  const text = parts.map((part) => part.text + (part.summary ?? []).join("")).join("");
  return text === "" ? null : text;
}
