/**
 * Prompt size in tokens, with the o200k_base BPE (gpt-tokenizer; loaded on first use, ~0.3 s once): what context
 * compression decides with and what `POST /messages/count_tokens` answers, so the two always agree. Two measures:
 * an exact count, and a cheap upper bound that needs no tokenizer (every BPE token covers at least one UTF-8 byte, so
 * a prompt whose bytes fit certainly fits). Images and native files count as fixed estimates: their real cost
 * depends on the provider (an image is ~765 tokens at OpenAI's high detail for 1024², a PDF per page).
 */
import type { Message, Part, TextPart } from "./parts.ts";
import type { Tool } from "./request.ts";

/** Framing tokens per message (role, separators), as OpenAI documents for its chat format. */
export const MESSAGE_OVERHEAD = 4;
/** Tokens that prime the reply. */
export const REPLY_PRIMING = 3;
export const IMAGE_TOKENS = 765;
export const FILE_TOKENS = 1_000;

/** Counts tokens of a text; the only thing that differs between the exact measure and the upper bound. */
export type Measure = (text: string) => number;

/** Upper bound: UTF-8 bytes (a token is never shorter than one byte). */
export const byteBound: Measure = (text) => (text.length === 0 ? 0 : Buffer.byteLength(text, "utf8"));

export interface Tokenizer {
  count: Measure;
  encode(text: string): number[];
  decode(tokens: number[]): string;
}

let loading: Promise<Tokenizer> | undefined;

/** The exact tokenizer, loaded once per process. Text that looks like a special token is ordinary text here. */
export function tokenizer(): Promise<Tokenizer> {
  loading ??= import("gpt-tokenizer/encoding/o200k_base").then(({ countTokens, encode, decode }) => {
    const options = { disallowedSpecial: new Set<string>() };
    return { count: (text) => (text.length === 0 ? 0 : countTokens(text, options)), encode: (text) => encode(text, options), decode };
  });
  return loading;
}

/** Tokens of one message under `measure` (framing included). */
export function messageTokens(message: Message, measure: Measure): number {
  let total = MESSAGE_OVERHEAD + (message.name ? measure(message.name) : 0);
  for (const part of message.parts) total += partTokens(part, measure);
  return total;
}

function partTokens(part: Part, measure: Measure): number {
  switch (part.type) {
    case "text":
    case "refusal":
      return measure(part.text);
    case "reasoning":
      return measure(part.text) + (part.summary ? part.summary.reduce((sum, s) => sum + measure(s), 0) : 0);
    case "image":
      return IMAGE_TOKENS;
    case "file":
      return FILE_TOKENS;
    case "tool-call":
      return measure(part.name) + measure(part.arguments);
    case "tool-result":
      return typeof part.content === "string"
        ? measure(part.content)
        : part.content.reduce((sum, inner) => sum + (inner.type === "text" ? measure(inner.text) : IMAGE_TOKENS), 0);
    case "server-tool":
      return measure(part.name) + measure(part.arguments) + measure(part.error ?? JSON.stringify(part.result ?? null));
    case "audio":
      // Audio the model spoke, replayed: what it said is the nearest measure the gateway has.
      return measure(part.transcript ?? "");
  }
}

/** Tokens of what is always sent besides the messages: the system prompt, tool definitions, reply priming. */
export function fixedTokens(system: readonly TextPart[], tools: readonly Tool[], measure: Measure): number {
  let total = REPLY_PRIMING;
  if (system.length > 0) total += MESSAGE_OVERHEAD + system.reduce((sum, part) => sum + measure(part.text), 0);
  if (tools.length > 0) total += measure(JSON.stringify(tools));
  return total;
}
