/**
 * core/model/o200k.ts: the library's exact count for ordinary text, a long pre-token counted as its bytes (never
 * below what the limits stage assumes for them, never above the byte bound), monotone in length, cuts that read
 * only what they keep, and counting in slices that give the event loop back.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import ranks from "gpt-tokenizer/bpeRanks/o200k_base";
import { clearMergeCache, countTokens, decode, encode } from "gpt-tokenizer/encoding/o200k_base";
import { O200K_TOKEN_SPLIT_REGEX } from "gpt-tokenizer/encodingParams/constants";
import { promptSize, promptTokenBound, promptTokenEstimate } from "../../../core/limits/estimate.ts";
import { LONG_PRETOKEN_CHARS, O200k } from "../../../core/model/o200k.ts";
import { Slices } from "../../../core/model/slices.ts";
import { byteBound, tokenizer, type Tokenizer } from "../../../core/model/tokens.ts";
import { canonicalRequest } from "../pipeline/helpers.ts";

const LIBRARY = { disallowedSpecial: new Set<string>() };
const libraryCount = (text: string) => countTokens(text, LIBRARY);
const bytes = (text: string) => Buffer.byteLength(text, "utf8");

let tk: Tokenizer;
beforeAll(async () => void (tk = await tokenizer()));

/** Text of every kind of pre-token (cases, contractions, digits, punctuation, CJK, marks, emoji, white space). */
function ordinaryText(seed: number, length: number): string {
  const pieces = [
    "the", " quick", " Brown", " FOX", "jumps", " don't", " I'm", " THEY'LL", " we've", " 1234567", " 3.14159", "...", "!!", " /* x */",
    " 日本語の", "テキスト", " naïve", " e\u0301", " مرحبا", " 🎉", "🎉🎉", " <|endoftext|>", "\n", "\r\n", "\t", "   ", "\n\n  ", " ", "  x", "__init__",
    "https://example.com/a/b?c=d", " CamelCaseWord", "ÀÉÎ", " \u00a0", "\u200b",
  ];
  let state = seed;
  let text = "";
  while (text.length < length) {
    state = (state * 48271) % 2147483647;
    text += pieces[state % pieces.length]!;
  }
  return text;
}

const longestPretoken = (text: string) => Math.max(0, ...[...text.matchAll(O200K_TOKEN_SPLIT_REGEX)].map((m) => m[0].length));

describe("ordinary text (no pre-token over 1,000 characters)", () => {
  test("counts exactly as gpt-tokenizer does, in one go and in slices, over many steps", async () => {
    const readme = await Bun.file(new URL("../../../README.md", import.meta.url)).text();
    const texts = [readme, ...[1, 2, 3, 4, 5, 6].map((seed) => ordinaryText(seed, 60_000)), "", "a", "hello world"];
    for (const text of texts) {
      expect(longestPretoken(text)).toBeLessThanOrEqual(LONG_PRETOKEN_CHARS);
      const exact = libraryCount(text);
      expect(tk.count(text)).toBe(exact);
      expect(await tk.sliced().count(text)).toBe(exact);
    }
  });

  test("encodes exactly as gpt-tokenizer does, and decodes back", () => {
    for (const text of [ordinaryText(7, 40_000), "日本語 🎉 e\u0301"]) {
      expect(tk.encode(text)).toEqual(encode(text, LIBRARY));
      expect(tk.decode(tk.encode(text))).toBe(text);
    }
  });
});

describe("a pre-token over 1,000 characters counts as its UTF-8 bytes", () => {
  // Letters (1, 2 and 3 bytes each), a mark, an emoji run (punctuation class), white space, punctuation.
  const units = ["x", "é", "日", "\u0300", "🎉", " ", "!"];

  test("never below what BPE counts, nor what the limits stage assumes for the same bytes; never above the byte bound", () => {
    for (const unit of units) {
      for (const length of [LONG_PRETOKEN_CHARS + 1, 2_500]) {
        const text = unit.repeat(Math.ceil(length / unit.length));
        const count = tk.count(text);
        expect(count).toBe(bytes(text));
        expect(count).toBeGreaterThanOrEqual(libraryCount(text));
        // The credit reservation charges a token per byte, rate limits a token per four bytes (core/limits/estimate.ts).
        const size = promptSize(canonicalRequest({ messages: [{ role: "user", parts: [{ type: "text", text }] }] }));
        expect(count).toBeGreaterThanOrEqual(size.bytes);
        expect(count).toBeGreaterThanOrEqual(promptTokenEstimate(size) - size.messages * 8);
        expect(count).toBeLessThanOrEqual(promptTokenBound(size));
      }
    }
  });

  test("80 KB and 5 MB of one letter: counted (BPE on them took 6.4 s and over 10 minutes)", async () => {
    for (const text of ["x".repeat(80_000), "a".repeat(5_000_000)]) {
      expect(tk.count(text)).toBe(text.length);
      expect(await tk.sliced().count(text)).toBe(text.length);
    }
  });

  test("mixed with ordinary text: ordinary parts exact, the long run its bytes, the whole within the byte bound", () => {
    const ordinary = ordinaryText(11, 5_000);
    const run = " " + "ab".repeat(3_000);
    const text = ordinary + run + ordinary;
    // The run is one pre-token with its leading space; the text before it ends at a pre-token boundary.
    expect(tk.count(text)).toBe(2 * libraryCount(ordinary) + bytes(run));
    for (const sample of [text, ordinaryText(12, 20_000), "🎉".repeat(5_000) + ordinary]) expect(tk.count(sample)).toBeLessThanOrEqual(byteBound(sample));
  });

  test("encodes as single-byte tokens, which count the same and decode back", () => {
    const text = `start ${"é".repeat(1_500)} middle ${"🎉".repeat(700)} end`;
    const tokens = tk.encode(text);
    expect(tokens.length).toBe(tk.count(text));
    expect(tk.decode(tokens)).toBe(text);
  });
});

test("monotone past the threshold: a long run never counts fewer tokens than any shorter run of the same character", () => {
  // BPE itself is not monotone (991 × `x` takes one token more than 992), so the bound is compared with the most any
  // shorter run takes; past the threshold the count grows with every character.
  for (const unit of ["x", "é", "日", " ", "!"]) {
    const run = (length: number) => tk.count(unit.repeat(length));
    let most = 0;
    for (let length = 1; length <= LONG_PRETOKEN_CHARS; length += length < 950 ? 25 : 1) most = Math.max(most, run(length));
    let previous = most;
    for (const length of [LONG_PRETOKEN_CHARS + 1, LONG_PRETOKEN_CHARS + 2, 1_500, 3_000, 100_000]) {
      const count = run(length);
      expect(count).toBeGreaterThan(previous);
      previous = count;
    }
  }
});

describe("head and tail", () => {
  test("a start and an end of the text, of at most the tokens asked", async () => {
    const text = ordinaryText(3, 30_000);
    for (const tokens of [1, 2, 7, 100, 1_000, 5_000]) {
      const head = await tk.sliced().head(text, tokens);
      const tail = await tk.sliced().tail(text, tokens);
      expect(text.startsWith(head)).toBe(true);
      expect(text.endsWith(tail)).toBe(true);
      expect(tk.count(head)).toBeLessThanOrEqual(tokens);
      expect(tk.count(tail)).toBeLessThanOrEqual(tokens + 2); // a cut may split the window's first pre-token
      expect(tk.count(head)).toBeGreaterThanOrEqual(tokens - 8);
      expect(tk.count(tail)).toBeGreaterThanOrEqual(tokens - 8);
    }
  });

  test("a text that fits comes back whole", async () => {
    const text = ordinaryText(4, 2_000);
    expect(await tk.sliced().head(text, 100_000)).toBe(text);
    expect(await tk.sliced().tail(text, 100_000)).toBe(text);
  });

  test("a long run is cut by characters at a token per byte, never inside a character", async () => {
    const run = "a".repeat(5_000_000);
    expect(await tk.sliced().head(run, 50_000)).toBe("a".repeat(50_000));
    expect(await tk.sliced().tail(run, 50_000)).toBe("a".repeat(50_000));
    const emoji = "🎉".repeat(2_000);
    expect(await tk.sliced().head(emoji, 4_006)).toBe("🎉".repeat(1_001));
    expect(await tk.sliced().tail(emoji, 4_006)).toBe("🎉".repeat(1_001));
    const wide = "é".repeat(3_000);
    expect(await tk.sliced().head(wide, 5)).toBe("éé");
  });
});

describe("slices", () => {
  test("a long count gives the event loop back while it runs, and counts the same", async () => {
    const text = ordinaryText(9, 1_000_000);
    let ticks = 0;
    let running = true;
    const tick = () => {
      ticks++;
      if (running) setImmediate(tick);
    };
    setImmediate(tick);
    const count = await tk.sliced().count(text);
    running = false;
    expect(ticks).toBeGreaterThan(1);
    expect(count).toBe(tk.count(text));
  });

  test("with a limit it stops once past it, without reading the rest", async () => {
    // 9 MB of words: 1.75 million tokens in all.
    const text = "lorem ipsum dolor sit amet ".repeat(350_000);
    const count = await tk.sliced().count(text, 1_000);
    expect(count).toBeGreaterThan(1_000);
    expect(count).toBeLessThan(20_000);
    expect(await tk.sliced().count("short text", 1_000)).toBe(2);
  });
});

test("the library's merge cache (100,000 pre-tokens, its eviction slows with use) is cleared before it can fill", async () => {
  let handed = 0;
  let most = 0;
  const spend = (text: string) => (most = Math.max(most, (handed += text.length)));
  const o200k = new O200k({
    countTokens: (text, options) => (spend(text), countTokens(text, options)),
    encode: (text, options) => (spend(text), encode(text, options)),
    decode,
    clearMergeCache: () => ((handed = 0), clearMergeCache()),
    pattern: O200K_TOKEN_SPLIT_REGEX,
    ranks,
  });
  // Words that never repeat: each is a new cache entry (at most one per character handed over).
  let state = 5;
  let text = "";
  while (text.length < 250_000) {
    state = (state * 48271) % 2147483647;
    text += ` w${state.toString(36)}`;
  }
  expect(await o200k.countSliced(text, new Slices())).toBeGreaterThan(50_000);
  expect(text.startsWith(await o200k.head(text, 40_000, new Slices()))).toBe(true);
  expect(text.endsWith(await o200k.tail(text, 40_000, new Slices()))).toBe(true);
  expect(most).toBeLessThan(100_000);
}, 20_000);
