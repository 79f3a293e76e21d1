/**
 * A light read of the chunks that make up most of a chat stream: `{…,"choices":[{"index":0,"delta":{"content":"…"},
 * …}]}`, each byte for byte the stream's earlier plain-content chunk but for its content string. Once one such chunk
 * was parsed whole, the text around its content string is kept; a later chunk with the same text around a string
 * with no escape, quote or control character in it is read without JSON.parse: its content is the text between the
 * quotes (JSON's grammar puts the same structure around any string in that place, and such a string means exactly
 * its characters). Anything else — escapes, a finish, usage, a tool call, a changed id — is parsed whole as before
 * (README "Performance").
 */
import type { ChatCompletion } from "./wire.ts";

/** Attempts at finding the shape before giving up on a stream that never repeats one (ids or fields that change). */
const MAX_LEARNS = 4;
/** A content string (plain: no escapes), to check where a candidate split puts the content. */
const MARKER = "content-chunks-marker-7f3a9";
/** What a JSON string can hold only escaped, or that would end it: a string with none of these means its characters. */
const NOT_PLAIN = /["\\\u0000-\u001f]/;

export class ContentChunks {
  /** The chunk's text up to and including its content string's opening quote, and from its closing quote on. */
  private before: string | undefined;
  private after = "";
  private learns = 0;

  /**
   * The chunk of `data` when it has the learned shape: only what the translation reads of such a chunk (choice 0's
   * content), or undefined when it must be parsed whole.
   */
  read(data: string): ChatCompletion | undefined {
    const before = this.before;
    if (before === undefined) return undefined;
    const after = this.after;
    const end = data.length - after.length;
    if (end < before.length || !data.startsWith(before) || !data.endsWith(after)) return undefined;
    const content = data.slice(before.length, end);
    if (NOT_PLAIN.test(content)) return undefined;
    return { choices: [{ index: 0, delta: { content } }] };
  }

  /** Learns the shape from a chunk parsed whole, when it is a plain-content chunk (and no shape is known yet). */
  learn(data: string, chunk: ChatCompletion): void {
    if (this.before !== undefined || this.learns >= MAX_LEARNS || !isPlainContent(chunk)) return;
    this.learns++;
    const key = data.lastIndexOf('"content":');
    if (key === -1) return;
    const open = key + '"content":'.length;
    const close = stringEnd(data, open);
    if (close === -1) return;
    const before = data.slice(0, open + 1);
    const after = data.slice(close);
    // The split must put a string exactly at choice 0's content, and leave everything else as the chunk has it.
    let probe: ChatCompletion;
    try {
      probe = JSON.parse(`${before}${MARKER}${after}`) as ChatCompletion;
    } catch {
      return;
    }
    const delta = probe.choices?.[0]?.delta;
    if (delta?.content !== MARKER) return;
    delta.content = chunk.choices![0]!.delta!.content;
    if (JSON.stringify(probe) !== JSON.stringify(chunk)) return;
    this.before = before;
    this.after = after;
  }
}

/** One choice 0 whose delta is only a content string: no finish, logprobs, usage or error to read. */
function isPlainContent(chunk: ChatCompletion): boolean {
  if (chunk.usage || chunk.error !== undefined || !Array.isArray(chunk.choices) || chunk.choices.length !== 1) return false;
  const choice = chunk.choices[0]!;
  if ((choice.index ?? 0) !== 0 || choice.finish_reason || Array.isArray(choice.logprobs?.content)) return false;
  const delta = choice.delta as Record<string, unknown> | undefined;
  if (delta === undefined || delta === null || typeof delta.content !== "string") return false;
  for (const name in delta) if (name !== "content") return false;
  return true;
}

/** The index of the closing quote of the JSON string starting at `start`, or -1 when none starts there. */
function stringEnd(text: string, start: number): number {
  if (text.charCodeAt(start) !== 0x22) return -1;
  for (let i = start + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5c) i++;
    else if (c === 0x22) return i;
  }
  return -1;
}
