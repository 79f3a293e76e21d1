/**
 * Normalisation before prompt-injection matching, so disguises do not
 * slip past the patterns: zero-width and other invisible characters removed, compatibility forms folded (fullwidth
 * `ｉｇｎｏｒｅ`, mathematical `𝐢𝐠𝐧𝐨𝐫𝐞`, ligatures), accents stripped, look-alike Cyrillic and Greek letters mapped
 * to Latin (Unicode confusables), whitespace runs collapsed, spaced-out words joined (`i g n o r e`), leetspeak
 * read as letters (`1gn0r3`), and scrambled middles of the words attacks rely on restored (typoglycemia:
 * `ignroe` → `ignore`). Case is kept (one pattern is case-sensitive); `map` takes every normalised position back
 * to the original text, so a finding can be reported and redacted where it really is.
 */
import { compact, foldText, invisible, isWhitespace, type Normalized } from "../normalize.ts";

export { originalSpan, type Normalized } from "../normalize.ts";

/** Look-alike letters (a subset of Unicode's confusables.txt: the Cyrillic and Greek letters drawn like Latin ones). */
const CONFUSABLES: Record<string, string> = {
  "а": "a", "в": "b", "е": "e", "ё": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p", "с": "c", "т": "t", "у": "y", "х": "x",
  "і": "i", "ї": "i", "ј": "j", "ѕ": "s", "ԁ": "d", "ԛ": "q", "ԝ": "w", "һ": "h", "ɡ": "g", "ı": "i", "ℓ": "l",
  "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P", "С": "C", "Т": "T", "У": "Y", "Х": "X",
  "І": "I", "Ј": "J", "Ѕ": "S", "Ԛ": "Q", "Ԝ": "W",
  "α": "a", "β": "b", "ε": "e", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p", "τ": "t", "υ": "u", "χ": "x", "γ": "y",
  "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N", "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X",
};

/** Digits and symbols read as letters inside words. */
const LEET: Record<string, string> = { "0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s", "!": "i" };

/** The words attacks are built on, restored when scrambled inside (first and last letters kept). */
const TARGETS = ["ignore", "disregard", "previous", "instructions", "instruction", "system", "prompt", "bypass", "override", "reveal", "jailbreak", "restrictions", "developer", "forget"];
const TARGET_KEYS = new Map<string, string>();
for (const word of TARGETS) TARGET_KEYS.set(scrambleKey(word), word);
function scrambleKey(word: string): string {
  return word[0] + [...word.slice(1, -1)].sort().join("") + word[word.length - 1] + word.length;
}

const NON_ASCII_OR_CONTROL = /[^\t\n\r\x20-\x7e]/;
const SPELLED_OUT = /(?:^|\s)[A-Za-z] [A-Za-z] [A-Za-z](?=\s|$)/;
const LEET_WORD = /[A-Za-z][013457@$!]|[013457@$!][A-Za-z]/;
/** Words that may be a target scrambled: its first and last letter, its length, letters from its middle. */
const SCRAMBLE_CANDIDATE = new RegExp(
  `\\b(?:${[...new Set(TARGETS)].map((t) => `${t[0]}[${[...new Set(t.slice(1, -1))].join("")}]{${t.length - 2}}${t[t.length - 1]}`).join("|")})\\b`,
  "gi",
);

/**
 * Normalises `original` (see the module comment). Plain ASCII with no spelled-out words and no leetspeak — most
 * text — takes the fast path: only scrambled targets are restored, in place (same length, so offsets do not move).
 */
export function normalize(original: string): Normalized {
  if (NON_ASCII_OR_CONTROL.test(original) || SPELLED_OUT.test(original) || LEET_WORD.test(original)) return normalizeFully(original);
  SCRAMBLE_CANDIDATE.lastIndex = 0;
  const text = original.replace(SCRAMBLE_CANDIDATE, (word) => {
    const target = TARGET_KEYS.get(scrambleKey(word.toLowerCase()));
    if (target === undefined) return word;
    let out = "";
    for (let j = 0; j < word.length; j++) out += word.charCodeAt(j) < 97 ? target[j]!.toUpperCase() : target[j]!;
    return out;
  });
  return { text };
}

const SPACE = 32;
const NEWLINE = 10;
/** Folded forms of non-ASCII code points (NFKD without marks, or the confusable), computed once each. */
const folded = new Map<number, string>();
function fold(cp: number): string {
  let f = folded.get(cp);
  if (f === undefined) {
    const raw = String.fromCodePoint(cp);
    f = CONFUSABLES[raw] ?? [...raw.normalize("NFKD").replace(/\p{M}/gu, "")].map((ch) => CONFUSABLES[ch] ?? ch).join("");
    if (folded.size < 10_000) folded.set(cp, f);
  }
  return f;
}

/**
 * One non-ASCII code point as normalisation reads it: "" for an invisible character, else its folded form (the
 * trigger pass of triggers.ts reads text the same way).
 */
export function normalizeChar(cp: number): string {
  if (invisible(cp)) return "";
  if (isWhitespace(cp)) return " ";
  return fold(cp);
}

const isAsciiLetter = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const LEET_CODES = new Int32Array(128).fill(-1);
for (const [k, v] of Object.entries(LEET)) LEET_CODES[k.charCodeAt(0)] = v.charCodeAt(0);

/**
 * Normalises `original` (see the module comment): the shared folding pass (../normalize.ts), collapsing whitespace,
 * then the word-level readings, in place on its arrays.
 */
function normalizeFully(original: string): Normalized {
  const f = foldText(original, normalizeChar, true);
  const keep = new Uint8Array(f.n).fill(1);
  joinSpacedLetters(f.out, f.run, keep, f.n);
  readWords(f.out, keep, f.n);
  return compact(f, original, keep);
}

const isBreakAt = (out: Uint16Array, k: number, n: number) => k < 0 || k >= n || out[k] === SPACE || out[k] === NEWLINE;

/**
 * `i g n o r e   a l l`: runs of at least three single letters separated by single spaces lose those spaces (the
 * wider gaps between the spelled-out words stay, as one space).
 */
function joinSpacedLetters(out: Uint16Array, run: Uint16Array, keep: Uint8Array, n: number): void {
  const single = (k: number) => isAsciiLetter(out[k]!) && isBreakAt(out, k - 1, n) && isBreakAt(out, k + 1, n);
  let k = 0;
  while (k < n) {
    if (!(k + 2 < n && single(k) && out[k + 1] === SPACE && run[k + 1] === 1 && single(k + 2))) {
      k++;
      continue;
    }
    let end = k;
    let letters = 1;
    while (end + 2 < n && out[end + 1] === SPACE && run[end + 1] === 1 && single(end + 2)) {
      end += 2;
      letters++;
    }
    if (letters >= 3) for (let s = k + 1; s < end; s += 2) keep[s] = 0;
    k = end + 1;
  }
}

/** Leetspeak letters and scrambled target words, word by word (lengths unchanged). */
function readWords(out: Uint16Array, keep: Uint8Array, n: number): void {
  let k = 0;
  const positions: number[] = [];
  while (k < n) {
    if (out[k] === SPACE || out[k] === NEWLINE) {
      k++;
      continue;
    }
    positions.length = 0;
    let letters = 0;
    let leet = 0;
    let other = 0;
    let p = k;
    for (; p < n && out[p] !== SPACE && out[p] !== NEWLINE; p++) {
      if (!keep[p]) continue; // a joined space inside a spelled-out word
      positions.push(p);
      const c = out[p]!;
      if (isAsciiLetter(c)) letters++;
      else if (c < 128 && LEET_CODES[c]! >= 0) leet++;
      else other++;
    }
    k = p;
    const len = positions.length;
    if (len >= 4 && letters > 0 && leet > 0 && other === 0) {
      for (const q of positions) if (out[q]! < 128 && LEET_CODES[out[q]!]! >= 0) out[q] = LEET_CODES[out[q]!]!;
      letters += leet;
    }
    if (len >= 6 && letters === len && TARGET_LENGTHS.has(len)) unscramble(out, positions);
  }
}

const TARGET_LENGTHS = new Set(TARGETS.map((t) => t.length));

function unscramble(out: Uint16Array, positions: readonly number[]): void {
  let word = "";
  for (const q of positions) word += String.fromCharCode(out[q]! | 0x20);
  const target = TARGET_KEYS.get(scrambleKey(word));
  if (target === undefined || target === word) return;
  positions.forEach((q, j) => {
    const upper = out[q]! < 97;
    out[q] = target.charCodeAt(j) - (upper ? 32 : 0);
  });
}
