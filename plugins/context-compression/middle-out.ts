/**
 * The `middle-out` engine: fits a conversation into a token budget (and a message-count cap) by removing whole
 * units from the middle — a unit is one message, or an assistant message with tool calls together with the tool
 * results that answer it, so calls and results go as pairs. The first and the last units always stay; the rest is
 * kept from both ends inwards, alternating (newest side first), for as long as it fits, so a capped conversation
 * keeps about half its messages from the start and half from the end. When the first and last units alone do not
 * fit, their longest texts are cut in the middle (start and end kept). Only the units it keeps are tokenized, so a
 * 200k-token history costs about what its kept part does. Never mutates its input.
 */
import type { Message, Part, TextPart, ToolResultPart } from "../../core/sdk/index.ts";
import { messageTokens, type Tokenizer } from "../../core/sdk/index.ts";

/** A cut text keeps at least this many tokens (its start and end) before compression gives up. */
export const MIN_KEPT_TOKENS = 32;
const CUT_MARKER = "\n[…]\n";

export interface MiddleOutInput {
  messages: readonly Message[];
  /** Tokens the messages may take (the window minus output, system prompt and tools). */
  budget: number;
  maxMessages?: number;
  tokenizer: Tokenizer;
}

export type MiddleOutResult =
  | { fits: true; messages: Message[]; removed: number; truncated: number; tokens: number }
  /** Even the first and last units cut to their minimum do not fit (or the cap leaves no room for them). */
  | { fits: false; minimumTokens: number };

export function middleOut(input: MiddleOutInput): MiddleOutResult {
  const { budget, tokenizer } = input;
  const cap = input.maxMessages ?? Number.POSITIVE_INFINITY;
  const units = unitsOf(input.messages);
  if (units.length === 0) return { fits: true, messages: [], removed: 0, truncated: 0, tokens: 0 };
  const sizes: number[] = [];
  const tokensOf = (index: number) => (sizes[index] ??= units[index]!.reduce((sum, m) => sum + messageTokens(m, tokenizer.count), 0));

  const last = units.length - 1;
  let used = tokensOf(0) + (last > 0 ? tokensOf(last) : 0);
  let count = units[0]!.length + (last > 0 ? units[last]!.length : 0);
  if (used > budget || count > cap) return cutEnds(units, last, budget, cap, tokenizer);

  // Grow a kept prefix [0, head) and suffix (tail, last] towards the middle while units fit.
  let head = 1;
  let tail = last - 1;
  let headOpen = true;
  let tailOpen = true;
  let tailTurn = true;
  while (head <= tail && (headOpen || tailOpen)) {
    const fromTail = tailOpen && (tailTurn || !headOpen);
    const index = fromTail ? tail : head;
    const size = tokensOf(index);
    const length = units[index]!.length;
    if (used + size <= budget && count + length <= cap) {
      used += size;
      count += length;
      if (fromTail) tail--;
      else head++;
    } else if (fromTail) tailOpen = false;
    else headOpen = false;
    tailTurn = !tailTurn;
  }
  const kept = [...units.slice(0, head), ...units.slice(tail + 1)];
  const removed = units.slice(head, tail + 1).reduce((sum, unit) => sum + unit.length, 0);
  return { fits: true, messages: kept.flat(), removed, truncated: 0, tokens: used };
}

/** Splits messages into units: an assistant turn with tool calls takes the tool results that follow it. */
export function unitsOf(messages: readonly Message[]): Message[][] {
  const units: Message[][] = [];
  let open = false; // the last unit holds tool calls still collecting their results
  for (const message of messages) {
    const answers = message.role === "tool" || message.parts.some((p) => p.type === "tool-result");
    if (answers && open) units.at(-1)!.push(message);
    else {
      units.push([message]);
      open = message.role === "assistant" && message.parts.some((p) => p.type === "tool-call");
    }
  }
  return units;
}

/** Only the first and last units: cut their longest texts in the middle until they fit, or give up. */
function cutEnds(units: Message[][], last: number, budget: number, cap: number, tokenizer: Tokenizer): MiddleOutResult {
  const kept = (last > 0 ? [units[0]!, units[last]!] : [units[0]!]).map((unit) => unit.map(cloneMessage));
  const messages = kept.flat();
  const removed = units.slice(1, last).reduce((sum, unit) => sum + unit.length, 0);
  const total = () => messages.reduce((sum, m) => sum + messageTokens(m, tokenizer.count), 0);
  if (messages.length > cap) return { fits: false, minimumTokens: total() };
  const cuttable = messages.flatMap((m) => m.parts.flatMap(textSlots));
  const cut = new Set<TextSlot>();
  const spent = new Set<TextSlot>(); // cut to the minimum, or a cut no longer shortens it
  let used = total();
  while (used > budget) {
    // The longest text that can still shrink.
    let longest: { slot: TextSlot; tokens: number } | undefined;
    for (const slot of cuttable) {
      if (spent.has(slot)) continue;
      const tokens = tokenizer.count(slot.get());
      if (tokens > MIN_KEPT_TOKENS && (!longest || tokens > longest.tokens)) longest = { slot, tokens };
    }
    if (!longest) return { fits: false, minimumTokens: used };
    const { slot, tokens } = longest;
    // The marker costs a few tokens and tokens may merge across the cut: aim a little lower.
    const target = Math.max(MIN_KEPT_TOKENS, tokens - (used - budget) - tokenizer.count(CUT_MARKER) - 2);
    const shorter = cutMiddle(slot.get(), target, tokenizer);
    if (tokenizer.count(shorter) >= tokens) spent.add(slot);
    else {
      slot.set(shorter);
      cut.add(slot);
      if (target === MIN_KEPT_TOKENS) spent.add(slot);
    }
    used = total();
  }
  return { fits: true, messages, removed, truncated: cut.size, tokens: used };
}

/** Keeps `keep` tokens of `text`: its first and last halves, joined by a marker. */
export function cutMiddle(text: string, keep: number, tokenizer: Tokenizer): string {
  const tokens = tokenizer.encode(text);
  if (tokens.length <= keep) return text;
  const head = Math.ceil(keep / 2);
  const tail = keep - head;
  // A cut inside a multi-byte character decodes to U+FFFD: drop those stray halves.
  const start = tokenizer.decode(tokens.slice(0, head)).replace(/\uFFFD+$/, "");
  const end = tail > 0 ? tokenizer.decode(tokens.slice(tokens.length - tail)).replace(/^\uFFFD+/, "") : "";
  return start + CUT_MARKER + end;
}

/** A text a cut may shorten: a text part, or a tool result's text. Tool-call arguments are JSON and stay whole. */
interface TextSlot {
  get(): string;
  set(text: string): void;
}

function textSlots(part: Part): TextSlot[] {
  if (part.type === "text") return [{ get: () => part.text, set: (text) => void (part.text = text) }];
  if (part.type !== "tool-result") return [];
  const result: ToolResultPart = part;
  if (typeof result.content === "string") return [{ get: () => result.content as string, set: (text) => void (result.content = text) }];
  return result.content.filter((inner): inner is TextPart => inner.type === "text").map((inner) => ({ get: () => inner.text, set: (text) => void (inner.text = text) }));
}

/** Deep enough that cutting a text never touches the caller's request (parts and tool-result contents copied). */
function cloneMessage(message: Message): Message {
  return {
    ...message,
    parts: message.parts.map((part) => {
      if (part.type === "tool-result" && typeof part.content !== "string") return { ...part, content: part.content.map((inner) => ({ ...inner })) };
      return { ...part };
    }),
  };
}
