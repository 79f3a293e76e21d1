/**
 * The `middle-out` engine: fits a conversation into a token budget (and a message-count cap) by removing whole
 * units from the middle — a unit is one message, or an assistant message with tool calls together with the tool
 * results that answer it, so calls and results go as pairs. The first and the last units always stay; the rest is
 * kept from both ends inwards, alternating (newest side first), for as long as it fits, so a capped conversation
 * keeps about half its messages from the start and half from the end. When the first and last units alone do not
 * fit, their longest texts are cut in the middle (start and end kept). Only the units it keeps are tokenized, so a
 * 200k-token history costs about what its kept part does; and no count goes on past what could still fit, nor does a
 * cut read more than it keeps, so a 9 MB message costs about what the budget does. All counting is the request's
 * sliced tokenizer, which gives the event loop back every few milliseconds. Never mutates its input.
 */
import type { Message, Part, SlicedTokenizer, TextPart, ToolResultPart } from "../../core/sdk/index.ts";

/** A cut text keeps at least this many tokens (its start and end) before compression gives up. */
export const MIN_KEPT_TOKENS = 32;
const CUT_MARKER = "\n[…]\n";

export interface MiddleOutInput {
  messages: readonly Message[];
  /** Tokens the messages may take (the window minus output, system prompt and tools). */
  budget: number;
  maxMessages?: number;
  /** The request's sliced counter: every count stops once above what could still fit (see the module comment). */
  tokenizer: SlicedTokenizer;
}

export type MiddleOutResult =
  | { fits: true; messages: Message[]; removed: number; truncated: number; tokens: number }
  /** Even the first and last units cut to their minimum do not fit (or the cap leaves no room for them); the count is
   * a lower bound: what cannot fit is not counted to its end. */
  | { fits: false; minimumTokens: number };

export async function middleOut(input: MiddleOutInput): Promise<MiddleOutResult> {
  const { budget, tokenizer } = input;
  const cap = input.maxMessages ?? Number.POSITIVE_INFINITY;
  const units = unitsOf(input.messages);
  if (units.length === 0) return { fits: true, messages: [], removed: 0, truncated: 0, tokens: 0 };
  // Exact up to `room`; above it, some number above it. A unit is asked again only with less room, so the first
  // answer stays right.
  const sizes: number[] = [];
  const tokensOf = async (index: number, room: number) => (sizes[index] ??= await unitTokens(units[index]!, room, tokenizer));

  const last = units.length - 1;
  let used = await tokensOf(0, budget);
  if (last > 0 && used <= budget) used += await tokensOf(last, budget - used);
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
    const length = units[index]!.length;
    const size = count + length <= cap ? await tokensOf(index, budget - used) : Number.POSITIVE_INFINITY;
    if (used + size <= budget) {
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

async function unitTokens(unit: readonly Message[], room: number, tokenizer: SlicedTokenizer): Promise<number> {
  let total = 0;
  for (const message of unit) {
    if (total > room) break;
    total += await tokenizer.message(message, room - total);
  }
  return total;
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

/**
 * Only the first and last units: cut their longest texts in the middle until they fit, or give up. Each text is
 * counted once (and again only after a cut, which is short); the longest is the first of an ordered list, so many
 * texts cost no more than their counts.
 */
async function cutEnds(units: Message[][], last: number, budget: number, cap: number, tokenizer: SlicedTokenizer): Promise<MiddleOutResult> {
  const kept = (last > 0 ? [units[0]!, units[last]!] : [units[0]!]).map((unit) => unit.map(cloneMessage));
  const messages = kept.flat();
  const removed = units.slice(1, last).reduce((sum, unit) => sum + unit.length, 0);
  const slots = messages.flatMap((m) => m.parts.flatMap(textSlots));
  // What cannot be cut (framing, tool-call JSON, images…): the messages with their cuttable texts emptied.
  const skeleton = messages.map(cloneMessage);
  for (const slot of skeleton.flatMap((m) => m.parts.flatMap(textSlots))) slot.set("");
  let used = await unitTokens(skeleton, budget, tokenizer);
  if (used > budget) return { fits: false, minimumTokens: used };
  // Counts stop above the budget: a longer text is cut below it whatever its length.
  const sizes: number[] = [];
  for (const slot of slots) sizes.push(await tokenizer.count(slot.get(), budget));
  used += sizes.reduce((sum, size) => sum + size, 0);
  if (messages.length > cap) return { fits: false, minimumTokens: used };

  const byLength = (a: number, b: number) => sizes[b]! - sizes[a]! || a - b;
  // Texts that can still shrink, longest first (the earlier one first among equals).
  const order = sizes.flatMap((size, index) => (size > MIN_KEPT_TOKENS ? [index] : [])).sort(byLength);
  const marker = await tokenizer.count(CUT_MARKER);
  const cut = new Set<number>();
  while (used > budget) {
    const index = order.shift();
    if (index === undefined) return { fits: false, minimumTokens: used };
    const slot = slots[index]!;
    const tokens = sizes[index]!;
    // The marker costs a few tokens and tokens may merge across the cut: aim a little lower.
    const target = Math.max(MIN_KEPT_TOKENS, tokens - (used - budget) - marker - 2);
    const shorter = await cutMiddle(slot.get(), target, tokenizer);
    const after = await tokenizer.count(shorter, budget);
    if (after >= tokens) continue; // a cut no longer shortens it: spent
    slot.set(shorter);
    cut.add(index);
    used += after - tokens;
    sizes[index] = after;
    if (target === MIN_KEPT_TOKENS || after <= MIN_KEPT_TOKENS) continue; // cut to the minimum: spent
    const at = order.findIndex((other) => byLength(index, other) < 0);
    order.splice(at === -1 ? order.length : at, 0, index);
  }
  return { fits: true, messages, removed, truncated: cut.size, tokens: used };
}

/** Keeps `keep` tokens of `text`: its first and last halves, joined by a marker; reads only what it keeps. */
export async function cutMiddle(text: string, keep: number, tokenizer: SlicedTokenizer): Promise<string> {
  if ((await tokenizer.count(text, keep)) <= keep) return text;
  const head = Math.ceil(keep / 2);
  return (await tokenizer.head(text, head)) + CUT_MARKER + (await tokenizer.tail(text, keep - head));
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
