/**
 * Normalisation before prompt-injection matching (reference §5: "matched on normalised text"), so disguises do not
 * slip past the patterns: zero-width and other invisible characters removed, compatibility forms folded (fullwidth
 * `ｉｇｎｏｒｅ`, mathematical `𝐢𝐠𝐧𝐨𝐫𝐞`, ligatures), accents stripped, look-alike Cyrillic and Greek letters mapped
 * to Latin (Unicode confusables), whitespace runs collapsed, spaced-out words joined (`i g n o r e`), leetspeak
 * read as letters (`1gn0r3`), and scrambled middles of the words attacks rely on restored (typoglycemia:
 * `ignroe` → `ignore`). Case is kept (one pattern is case-sensitive); `map` takes every normalised position back
 * to the original text, so a finding can be reported and redacted where it really is.
 */

/** Invisible characters: zero-width, joiners, bidi controls, soft hyphen, word joiner, BOM, tag characters. */
function invisible(c: number): boolean {
  return (
    c === 0xad || (c >= 0x200b && c <= 0x200f) || (c >= 0x202a && c <= 0x202e) || (c >= 0x2060 && c <= 0x2064) ||
    (c >= 0x2066 && c <= 0x2069) || c === 0xfeff || c === 0x180e || c === 0x034f || (c >= 0xe0000 && c <= 0xe007f)
  );
}

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

export interface Normalized {
  text: string;
  /** `map[i]` = offset in the original of normalised character `i`; absent: the same offset (nothing moved). */
  map?: Int32Array;
  /** `ends[i]` = offset just past the original character(s) normalised character `i` came from. */
  ends?: Int32Array;
}

/** Where normalised `[start, end)` is in the original. */
export function originalSpan(n: Normalized, start: number, end: number): { start: number; end: number } {
  if (!n.map || !n.ends) return { start, end };
  return { start: n.map[start]!, end: n.ends[end - 1]! };
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

function isWhitespace(cp: number): boolean {
  return cp === 32 || (cp >= 9 && cp <= 13) || cp === 0xa0 || (cp >= 0x2000 && cp <= 0x200a) || cp === 0x3000 || cp === 0x2028 || cp === 0x2029 || cp === 0x202f || cp === 0x205f;
}
const isAsciiLetter = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const LEET_CODES = new Int32Array(128).fill(-1);
for (const [k, v] of Object.entries(LEET)) LEET_CODES[k.charCodeAt(0)] = v.charCodeAt(0);

/**
 * Normalises `original` (see the module comment) in typed arrays, one pass per step: it runs on every user
 * message of every guarded request, so it must cost microseconds, not allocate per character.
 */
function normalizeFully(original: string): Normalized {
  const cap = original.length * 2 + 1;
  let out = new Uint16Array(cap);
  let from = new Int32Array(cap);
  let to = new Int32Array(cap);
  /** For an emitted space: how many whitespace characters it stands for. */
  let run = new Uint16Array(cap);
  let n = 0;
  const grow = (need: number) => {
    if (n + need <= out.length) return;
    const size = Math.max(out.length * 2, n + need);
    const o = new Uint16Array(size), f = new Int32Array(size), t = new Int32Array(size), r = new Uint16Array(size);
    o.set(out), f.set(from), t.set(to), r.set(run);
    [out, from, to, run] = [o, f, t, r];
  };
  let i = 0;
  while (i < original.length) {
    let cp = original.charCodeAt(i);
    const at = i;
    if (cp >= 0xd800 && cp <= 0xdbff) cp = original.codePointAt(i)!;
    i += cp > 0xffff ? 2 : 1;
    if (cp < 128 && cp > 32) {
      out[n] = cp, from[n] = at, to[n] = i, n++;
      continue;
    }
    if (isWhitespace(cp)) {
      const newline = cp === 10 || cp === 13 || cp === 0x2028 || cp === 0x2029;
      if (n > 0 && (out[n - 1] === SPACE || out[n - 1] === NEWLINE)) {
        if (newline) out[n - 1] = NEWLINE;
        to[n - 1] = i;
        if (run[n - 1]! < 65_535) run[n - 1]!++;
        continue;
      }
      out[n] = newline ? NEWLINE : SPACE, from[n] = at, to[n] = i, run[n] = 1, n++;
      continue;
    }
    if (cp < 128 || invisible(cp)) continue; // control characters and invisibles
    const f = fold(cp);
    grow(f.length);
    for (let k = 0; k < f.length; k++) (out[n] = f.charCodeAt(k)), (from[n] = at), (to[n] = i), n++;
  }
  const keep = new Uint8Array(n).fill(1);
  joinSpacedLetters(out, run, keep, n);
  readWords(out, keep, n);
  const map = new Int32Array(n + 1);
  const ends = new Int32Array(n + 1);
  const codes = new Uint16Array(n);
  let m = 0;
  for (let k = 0; k < n; k++) {
    if (!keep[k]) continue;
    codes[m] = out[k]!;
    map[m] = from[k]!;
    ends[m] = to[k]!;
    m++;
  }
  map[m] = original.length;
  ends[m] = original.length;
  return { text: decode(codes.subarray(0, m)), map: map.subarray(0, m + 1), ends: ends.subarray(0, m + 1) };
}

const utf16 = new TextDecoder("utf-16le");
function decode(codes: Uint16Array): string {
  return utf16.decode(codes);
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
