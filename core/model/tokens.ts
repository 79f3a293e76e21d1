/**
 * Prompt size in tokens, with the o200k_base BPE (gpt-tokenizer, in linear time: o200k.ts; loaded on first use,
 * ~0.3 s once): what context compression decides with and what `POST /messages/count_tokens` answers, so the two
 * always agree. Two measures: an exact count, and a cheap upper bound that needs no tokenizer (every token covers at
 * least one UTF-8 byte, so a prompt whose bytes fit certainly fits). Images and native files count as fixed
 * estimates: their real cost depends on the provider (an image is ~765 tokens at OpenAI's high detail for 1024², a
 * PDF per page).
 */
import { O200k } from "./o200k.ts";
import type { Message, Part, TextPart } from "./parts.ts";
import type { Tool } from "./request.ts";
import { Slices } from "./slices.ts";

/** Framing tokens per message (role, separators), as OpenAI documents for its chat format. */
export const MESSAGE_OVERHEAD = 4;
/** Tokens that prime the reply. */
export const REPLY_PRIMING = 3;
export const IMAGE_TOKENS = 765;
export const FILE_TOKENS = 1_000;

/** Counts tokens of a text; the only thing that differs between the exact measure and the upper bound. */
export type Measure = (text: string) => number;

/** Upper bound: UTF-8 bytes (a token is never shorter than one byte; o200k.ts keeps its count within it). */
export const byteBound: Measure = (text) => (text.length === 0 ? 0 : Buffer.byteLength(text, "utf8"));

export interface Tokenizer {
  /** Exact count, in one go: linear, but it holds the event loop for the whole text — for short texts. */
  count: Measure;
  /** Token ids whose number is count(text) (a pre-token of over 1,000 characters as its bytes); in one go. */
  encode(text: string): number[];
  decode(tokens: number[]): string;
  /** Counting and cutting for one piece of work (a request), in slices that give the event loop back. */
  sliced(): SlicedTokenizer;
}

/** The exact count of long texts and whole prompts, yielding to the event loop every few milliseconds. */
export interface SlicedTokenizer {
  /** Tokens of `text`; with a `limit`, it stops once above it (and then answers some number above it). */
  count(text: string, limit?: number): Promise<number>;
  /** messageTokens() under the exact count, with the same early stop. */
  message(message: Message, limit?: number): Promise<number>;
  /** fixedTokens() under the exact count, with the same early stop. */
  fixed(system: readonly TextPart[], tools: readonly Tool[], limit?: number): Promise<number>;
  /** The longest start of `text` with at most `tokens` tokens; work in proportion to what it keeps. */
  head(text: string, tokens: number): Promise<string>;
  /** The longest end of `text` with at most `tokens` tokens; work in proportion to what it keeps. */
  tail(text: string, tokens: number): Promise<string>;
}

let loading: Promise<Tokenizer> | undefined;

/** The exact tokenizer, loaded once per process. Text that looks like a special token is ordinary text here. */
export function tokenizer(): Promise<Tokenizer> {
  loading ??= Promise.all([
    import("gpt-tokenizer/encoding/o200k_base"),
    import("gpt-tokenizer/encodingParams/constants"),
    import("gpt-tokenizer/bpeRanks/o200k_base"),
  ]).then(([{ countTokens, encode, decode, clearMergeCache }, { O200K_TOKEN_SPLIT_REGEX }, { default: ranks }]) => {
    const o200k = new O200k({ countTokens, encode, decode, clearMergeCache, pattern: O200K_TOKEN_SPLIT_REGEX, ranks });
    return {
      count: (text) => o200k.count(text),
      encode: (text) => o200k.encode(text),
      decode: (tokens) => o200k.decode(tokens),
      sliced: () => sliced(o200k, new Slices()),
    };
  });
  return loading;
}

function sliced(o200k: O200k, slices: Slices): SlicedTokenizer {
  const count = (text: string, limit?: number) => o200k.countSliced(text, slices, limit);
  /** `fixed` plus the texts' counts, stopping once above `limit`. */
  const sum = async (fixed: number, texts: readonly string[], limit = Number.POSITIVE_INFINITY) => {
    let total = fixed;
    for (const text of texts) {
      if (total > limit) break;
      total += await count(text, limit - total);
    }
    return total;
  };
  return {
    count,
    message: (message, limit) => {
      const texts: string[] = [];
      return sum(messageShape(message, (text) => void texts.push(text)), texts, limit);
    },
    fixed: (system, tools, limit) => {
      const texts: string[] = [];
      return sum(fixedShape(system, tools, (text) => void texts.push(text)), texts, limit);
    },
    head: (text, tokens) => o200k.head(text, tokens, slices),
    tail: (text, tokens) => o200k.tail(text, tokens, slices),
  };
}

/** Tokens of one message under `measure` (framing included). */
export function messageTokens(message: Message, measure: Measure): number {
  let texts = 0;
  const fixed = messageShape(message, (text) => void (texts += measure(text)));
  return fixed + texts;
}

/** Tokens of what is always sent besides the messages: the system prompt, tool definitions, reply priming. */
export function fixedTokens(system: readonly TextPart[], tools: readonly Tool[], measure: Measure): number {
  let texts = 0;
  const fixed = fixedShape(system, tools, (text) => void (texts += measure(text)));
  return fixed + texts;
}

/**
 * What a message costs: each text it carries is handed to `text`; what is not text (framing, images, files) is
 * returned as tokens. The one description both measures and the sliced count use.
 */
function messageShape(message: Message, text: (text: string) => void): number {
  if (message.name) text(message.name);
  let fixed = MESSAGE_OVERHEAD;
  for (const part of message.parts) fixed += partShape(part, text);
  return fixed;
}

function partShape(part: Part, text: (text: string) => void): number {
  switch (part.type) {
    case "text":
    case "refusal":
      text(part.text);
      return 0;
    case "reasoning":
      text(part.text);
      for (const summary of part.summary ?? []) text(summary);
      return 0;
    case "image":
      return IMAGE_TOKENS;
    case "file":
      return FILE_TOKENS;
    case "tool-call":
      text(part.name);
      text(part.arguments);
      return 0;
    case "tool-result":
      if (typeof part.content === "string") {
        text(part.content);
        return 0;
      }
      return part.content.reduce((sum, inner) => (inner.type === "text" ? (text(inner.text), sum) : sum + IMAGE_TOKENS), 0);
    case "server-tool":
      text(part.name);
      text(part.arguments);
      text(part.error ?? JSON.stringify(part.result ?? null));
      return 0;
    case "audio":
      // Audio the model spoke, replayed: what it said is the nearest measure the gateway has.
      text(part.transcript ?? "");
      return 0;
  }
}

function fixedShape(system: readonly TextPart[], tools: readonly Tool[], text: (text: string) => void): number {
  let fixed = REPLY_PRIMING;
  if (system.length > 0) {
    fixed += MESSAGE_OVERHEAD;
    for (const part of system) text(part.text);
  }
  if (tools.length > 0) text(JSON.stringify(tools));
  return fixed;
}
