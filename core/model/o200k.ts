/**
 * o200k_base token counts in linear time, in slices that give the event loop back.
 *
 * gpt-tokenizer splits text into pre-tokens (a word with the character before it, a run of punctuation, up to three
 * digits, a run of white space) and runs byte-pair merges on each; its merge loop is quadratic in the pre-token's
 * length, and a run of letters with no space is one pre-token (80 KB of `x` took 6.4 s, 5 MB never finished). So a
 * pre-token longer than LONG_PRETOKEN_CHARS never reaches BPE here: it counts as its UTF-8 bytes, encodes as its
 * single-byte tokens (o200k has one for every byte: a valid tokenization, if not the shortest) and is cut by
 * characters. Everything else is the library's exact count.
 *
 * What the rest of the gateway relies on (tested in test/unit/model/o200k.test.ts):
 * - count(text) ≤ UTF-8 bytes of text (`byteBound`): a prompt whose bytes fit needs no count, and the credit
 *   reservation, which charges a token per prompt byte (core/limits/estimate.ts), is never below a count;
 * - a long pre-token counts exactly its bytes: never below what the limits stage assumes for those bytes (one token
 *   per byte reserved, a quarter of that for rate limits), and never below what BPE would have counted;
 * - text made only of pre-tokens of at most LONG_PRETOKEN_CHARS counts exactly as gpt-tokenizer counts it.
 */
import type { Slices } from "./slices.ts";

/** Pre-tokens longer than this are counted without BPE (BPE on 1,000 characters costs ~1.8 ms, on 8,000 ~46 ms). */
export const LONG_PRETOKEN_CHARS = 1_000;

/**
 * Work between two looks at the clock, in characters: ~1 ms of BPE for ordinary prose, ~10 ms for text whose words
 * never repeat (random letters, base64), where every pre-token goes through BPE; a pre-token of length n weighs
 * n + n²/64, as BPE's cost grows, so a step holds one 999-character pre-token (~1.8 ms).
 */
const STEP_COST = 8_192;

/**
 * gpt-tokenizer caches merges per pre-token in a Map of 100,000 entries, evicting the oldest once full; in Bun that
 * eviction slows down with every entry evicted before (1 MB of words that never repeat took 10.8 s, 2 MB 118 s). So
 * the cache is cleared after this many characters, before it can fill: no eviction ever runs.
 */
const CACHE_CLEAR_CHARS = 50_000;

/** What this module needs of gpt-tokenizer (loaded lazily by tokens.ts). */
export interface O200kLibrary {
  countTokens(text: string, options: { disallowedSpecial: Set<string> }): number;
  encode(text: string, options: { disallowedSpecial: Set<string> }): number[];
  decode(tokens: number[]): string;
  clearMergeCache(): void;
  /** The o200k pre-token pattern (`O200K_TOKEN_SPLIT_REGEX`). */
  pattern: RegExp;
  /** Index = token id: its text, or its bytes when they are not UTF-8 (ids 0–255 are the single bytes). */
  ranks: ReadonlyArray<string | number[]>;
}

/** A stretch of text processed in one go: one long pre-token, or a run of ordinary ones of bounded cost. */
interface Step {
  start: number;
  end: number;
  long: boolean;
}

// Text that looks like a special token (`<|endoftext|>`) is ordinary text here.
const OPTIONS = { disallowedSpecial: new Set<string>() };
const utf8 = new TextEncoder();

export class O200k {
  private readonly pattern: RegExp;
  private readonly byteTokens: number[] = [];
  /** Characters handed to the library since its merge cache was last cleared. */
  private cached = 0;

  constructor(private readonly lib: O200kLibrary) {
    this.pattern = new RegExp(lib.pattern.source, "gu");
    for (let id = 0; id < 256; id++) {
      const value = lib.ranks[id]!;
      this.byteTokens[typeof value === "string" ? value.charCodeAt(0) : value[0]!] = id;
    }
  }

  /** Tokens of `text` in one go: linear, but it holds the loop for all of it (~0.1 µs a character): short texts. */
  count(text: string): number {
    let total = 0;
    for (const step of this.steps(text)) total += this.stepTokens(text, step);
    return total;
  }

  /** The same count, yielding to the loop between steps; stops once above `limit` (and then answers more than it). */
  async countSliced(text: string, slices: Slices, limit = Number.POSITIVE_INFINITY): Promise<number> {
    let total = 0;
    for (const step of this.steps(text)) {
      total += this.stepTokens(text, step);
      if (total > limit) return total;
      await slices.next();
    }
    return total;
  }

  /** Token ids whose count is count(text); in one go (short texts). */
  encode(text: string): number[] {
    const tokens: number[] = [];
    for (const { start, end, long } of this.steps(text)) {
      const piece = text.slice(start, end);
      if (long) for (const byte of utf8.encode(piece)) tokens.push(this.byteTokens[byte]!);
      else for (const token of this.bpe(piece)) tokens.push(token);
    }
    return tokens;
  }

  /** Text of token ids; a character split between tokens decodes to U+FFFD. */
  decode(tokens: number[]): string {
    const chunks: Uint8Array[] = [];
    for (const token of tokens) {
      const value = this.lib.ranks[token];
      chunks.push(value === undefined ? utf8.encode(this.lib.decode([token])) : typeof value === "string" ? utf8.encode(value) : Uint8Array.from(value));
    }
    return new TextDecoder().decode(Buffer.concat(chunks));
  }

  /** The longest start of `text` with at most `tokens` tokens: whole steps, then pre-tokens, then tokens or characters. */
  async head(text: string, tokens: number, slices: Slices): Promise<string> {
    let used = 0;
    for (const step of this.steps(text)) {
      const size = this.stepTokens(text, step);
      if (used + size <= tokens) {
        used += size;
        await slices.next();
        continue;
      }
      if (step.long) return text.slice(0, step.start + charsWithin(text, step.start, step.end, tokens - used, false));
      for (const token of this.pretokens(text, step)) {
        const ids = this.bpe(token.text);
        if (used + ids.length <= tokens) {
          used += ids.length;
          continue;
        }
        const bytes = this.bytesOf(ids.slice(0, tokens - used));
        return text.slice(0, token.start + charsWithin(token.text, 0, token.text.length, bytes, false));
      }
      return text.slice(0, step.end);
    }
    return text;
  }

  /**
   * The longest end of `text` with at most `tokens` tokens, as head() from the other side. Pre-tokens cannot be found
   * backwards, so it reads a window of the text's end, four times wider each time it holds too few tokens: the work
   * is in proportion to what it keeps, not to the text.
   */
  async tail(text: string, tokens: number, slices: Slices): Promise<string> {
    if (tokens <= 0) return "";
    let width = Math.min(text.length, tokens * 4 + 64);
    for (;;) {
      const from = text.length - width;
      const window = from === 0 ? text : text.slice(from);
      const steps = [...this.steps(window)];
      const sizes: number[] = [];
      let total = 0;
      for (const step of steps) {
        sizes.push(this.stepTokens(window, step));
        total += sizes.at(-1)!;
        await slices.next();
      }
      if (total <= tokens && from > 0) {
        width = Math.min(text.length, width * 4);
        continue;
      }
      if (total <= tokens) return text;
      return window.slice(this.tailStart(window, steps, sizes, tokens));
    }
  }

  /** Where the last `tokens` tokens of `window` begin, given its steps and their sizes. */
  private tailStart(window: string, steps: Step[], sizes: number[], tokens: number): number {
    let used = 0;
    for (let i = steps.length - 1; i >= 0; i--) {
      const step = steps[i]!;
      if (used + sizes[i]! <= tokens) {
        used += sizes[i]!;
        continue;
      }
      if (step.long) return step.end - charsWithin(window, step.start, step.end, tokens - used, true);
      const inner = [...this.pretokens(window, step)];
      let start = step.end;
      for (let j = inner.length - 1; j >= 0; j--) {
        const token = inner[j]!;
        const ids = this.bpe(token.text);
        if (used + ids.length <= tokens) {
          used += ids.length;
          start = token.start;
          continue;
        }
        const bytes = this.bytesOf(ids.slice(ids.length - (tokens - used)));
        return token.start + token.text.length - charsWithin(token.text, 0, token.text.length, bytes, true);
      }
      return start;
    }
    return 0;
  }

  private stepTokens(text: string, { start, end, long }: Step): number {
    const piece = start === 0 && end === text.length ? text : text.slice(start, end);
    if (long) return Buffer.byteLength(piece, "utf8");
    this.spend(piece.length);
    return this.lib.countTokens(piece, OPTIONS);
  }

  private bpe(text: string): number[] {
    this.spend(text.length);
    return this.lib.encode(text, OPTIONS);
  }

  /** Clears the library's merge cache before `characters` more could fill it (CACHE_CLEAR_CHARS). */
  private spend(characters: number): void {
    this.cached += characters;
    if (this.cached <= CACHE_CLEAR_CHARS) return;
    this.lib.clearMergeCache();
    this.cached = characters;
  }

  /**
   * The text as steps. A step ends at a pre-token boundary, so the library splits its piece into the same
   * pre-tokens as the whole text and the counts add up exactly. Text no longer than LONG_PRETOKEN_CHARS is one step.
   */
  private *steps(text: string): Generator<Step> {
    if (text.length <= LONG_PRETOKEN_CHARS) {
      if (text.length > 0) yield { start: 0, end: text.length, long: false };
      return;
    }
    let start = 0;
    let end = 0;
    let cost = 0;
    for (const match of text.matchAll(this.pattern)) {
      const at = match.index;
      const length = match[0].length;
      if (length > LONG_PRETOKEN_CHARS) {
        if (end > start) yield { start, end, long: false };
        yield { start: at, end: at + length, long: true };
        start = end = at + length;
        cost = 0;
        continue;
      }
      end = at + length;
      cost += length + (length * length) / 64;
      if (cost >= STEP_COST) {
        yield { start, end, long: false };
        start = end;
        cost = 0;
      }
    }
    if (end > start) yield { start, end, long: false };
  }

  private *pretokens(text: string, step: Step): Generator<{ start: number; text: string }> {
    const piece = text.slice(step.start, step.end);
    for (const match of piece.matchAll(this.pattern)) yield { start: step.start + match.index, text: match[0] };
  }

  private bytesOf(tokens: number[]): number {
    let bytes = 0;
    for (const token of tokens) {
      const value = this.lib.ranks[token]!;
      bytes += typeof value === "string" ? Buffer.byteLength(value, "utf8") : value.length;
    }
    return bytes;
  }
}

/**
 * How many UTF-16 units of text[start, end) — from its start, or from its end when `fromEnd` — make whole characters
 * of at most `bytes` UTF-8 bytes. Never splits a surrogate pair.
 */
function charsWithin(text: string, start: number, end: number, bytes: number, fromEnd: boolean): number {
  let used = 0;
  let units = 0;
  while (units < end - start) {
    const at = fromEnd ? end - units - 1 : start + units;
    const code = text.charCodeAt(at);
    // A surrogate pair is one 4-byte character; a lone surrogate encodes as U+FFFD (3 bytes), as Buffer counts it.
    const pair = fromEnd ? isLow(code) && at > start && isHigh(text.charCodeAt(at - 1)) : isHigh(code) && at + 1 < end && isLow(text.charCodeAt(at + 1));
    const size = pair ? 4 : code < 0x80 ? 1 : code < 0x800 ? 2 : 3;
    if (used + size > bytes) break;
    used += size;
    units += pair ? 2 : 1;
  }
  return units;
}

const isHigh = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLow = (code: number) => code >= 0xdc00 && code <= 0xdfff;
