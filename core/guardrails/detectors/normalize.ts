/**
 * Normalised views of a text for matching, each with the way back to the original: a detector matches on the view
 * and reports (and redaction replaces) the original characters the match came from. Two readings share the pass
 * that folds code points and keeps the offsets:
 * - the matching view every built-in but prompt injection reads (`matchingView`): NFKC per code point (fullwidth
 *   `＠` and digits, mathematical digits), invisible characters (zero-width, joiners, soft hyphen, BOM) removed, every
 *   kind of space read as a space and the hyphens and minus signs of Unicode as `-`, so `4111 1111…` with
 *   non-breaking spaces, `jane＠example.com` and a key with a zero-width space inside are what they look like;
 * - prompt injection's stronger one (injection/normalize.ts), which also collapses whitespace and undoes disguises.
 * Plain ASCII, most text, is its own matching view: nothing is copied.
 */
import { isAscii } from "./codes.ts";

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

/** Invisible characters: zero-width, joiners, bidi controls, soft hyphen, word joiner, BOM, tag characters. */
export function invisible(c: number): boolean {
  return (
    c === 0xad || (c >= 0x200b && c <= 0x200f) || (c >= 0x202a && c <= 0x202e) || (c >= 0x2060 && c <= 0x2064) ||
    (c >= 0x2066 && c <= 0x2069) || c === 0xfeff || c === 0x180e || c === 0x034f || (c >= 0xe0000 && c <= 0xe007f)
  );
}

export function isWhitespace(cp: number): boolean {
  if (cp <= 32) return cp === 32 || (cp >= 9 && cp <= 13);
  return cp >= 0x85 && (cp === 0x85 || cp === 0xa0 || cp === 0x1680 || (cp >= 0x2000 && cp <= 0x200a) || cp === 0x3000 || cp === 0x2028 || cp === 0x2029 || cp === 0x202f || cp === 0x205f);
}

const isLineBreak = (cp: number) => cp === 10 || cp === 13 || cp === 0x85 || cp === 0x2028 || cp === 0x2029;

/** Hyphens, dashes used as separators and minus signs (not the em dash of prose). */
const isHyphen = (cp: number) => (cp >= 0x2010 && cp <= 0x2013) || cp === 0x2212 || cp === 0xfe63 || cp === 0xff0d;

const matching = new Map<number, string>();

/** A non-ASCII code point as the matching view reads it ("" when invisible). */
export function matchingChar(cp: number): string {
  let f = matching.get(cp);
  if (f === undefined) {
    f = invisible(cp) ? "" : isWhitespace(cp) ? (isLineBreak(cp) ? "\n" : " ") : isHyphen(cp) ? "-" : String.fromCodePoint(cp).normalize("NFKC");
    if (matching.size < 10_000) matching.set(cp, f);
  }
  return f;
}

/** Code units of the folded text, and for each the original `[from, to)` it came from. */
export interface Folded {
  out: Uint16Array;
  from: Int32Array;
  to: Int32Array;
  /** With `collapse`: for an emitted space or newline, how many whitespace characters it stands for. */
  run: Uint16Array;
  n: number;
}

/**
 * One pass over `original`, in typed arrays (it runs on every guarded text, so it must cost microseconds and not
 * allocate per character): printable ASCII as it is; each other code point as `fold` reads it ("" drops it). With
 * `collapse`, whitespace runs become one space (a newline if any was one) and ASCII control characters vanish;
 * without, ASCII is never touched.
 */
export function foldText(original: string, fold: (cp: number) => string, collapse: boolean): Folded {
  const cap = original.length * 2 + 1;
  const f: Folded = { out: new Uint16Array(cap), from: new Int32Array(cap), to: new Int32Array(cap), run: new Uint16Array(collapse ? cap : 0), n: 0 };
  const grow = (need: number) => {
    if (f.n + need <= f.out.length) return;
    const size = Math.max(f.out.length * 2, f.n + need);
    const o = new Uint16Array(size), fr = new Int32Array(size), t = new Int32Array(size), r = new Uint16Array(collapse ? size : 0);
    o.set(f.out), fr.set(f.from), t.set(f.to), r.set(f.run);
    [f.out, f.from, f.to, f.run] = [o, fr, t, r];
  };
  let i = 0;
  while (i < original.length) {
    let cp = original.charCodeAt(i);
    const at = i;
    if (cp >= 0xd800 && cp <= 0xdbff) cp = original.codePointAt(i)!;
    i += cp > 0xffff ? 2 : 1;
    if ((cp < 128 && cp > 32) || (cp < 128 && !collapse)) {
      f.out[f.n] = cp, f.from[f.n] = at, f.to[f.n] = i, f.n++;
      continue;
    }
    if (collapse && isWhitespace(cp)) {
      const n = f.n;
      const newline = isLineBreak(cp);
      if (n > 0 && (f.out[n - 1] === SPACE || f.out[n - 1] === NEWLINE)) {
        if (newline) f.out[n - 1] = NEWLINE;
        f.to[n - 1] = i;
        if (f.run[n - 1]! < 65_535) f.run[n - 1]!++;
        continue;
      }
      f.out[n] = newline ? NEWLINE : SPACE, f.from[n] = at, f.to[n] = i, f.run[n] = 1, f.n++;
      continue;
    }
    if (cp < 128) continue; // a control character, collapsing
    const folded = fold(cp);
    grow(folded.length);
    for (let k = 0; k < folded.length; k++) (f.out[f.n] = folded.charCodeAt(k)), (f.from[f.n] = at), (f.to[f.n] = i), f.n++;
  }
  return f;
}

const SPACE = 32;
const NEWLINE = 10;
const utf16 = new TextDecoder("utf-16le");

/** The folded text (without the positions `keep` clears) and its map back to `original`. */
export function compact(f: Folded, original: string, keep?: Uint8Array): Normalized {
  const map = new Int32Array(f.n + 1);
  const ends = new Int32Array(f.n + 1);
  const codes = new Uint16Array(f.n);
  let m = 0;
  for (let k = 0; k < f.n; k++) {
    if (keep && !keep[k]) continue;
    codes[m] = f.out[k]!;
    map[m] = f.from[k]!;
    ends[m] = f.to[k]!;
    m++;
  }
  map[m] = original.length;
  ends[m] = original.length;
  return { text: utf16.decode(codes.subarray(0, m)), map: map.subarray(0, m + 1), ends: ends.subarray(0, m + 1) };
}

/** Several detectors read the same text one after the other: the view of the last text is kept. */
let lastText: string | undefined;
let lastView: Normalized = { text: "" };

/** The matching view of `text` (see the module comment). */
export function matchingView(text: string): Normalized {
  if (text === lastText) return lastView;
  let view: Normalized = { text };
  if (!isAscii(text)) {
    const folded = compact(foldText(text, matchingChar, false), text);
    if (folded.text !== text) view = folded;
  }
  lastText = text;
  lastView = view;
  return view;
}
