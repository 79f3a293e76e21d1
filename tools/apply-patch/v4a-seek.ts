/**
 * Finding where a hunk goes in a file. Models copy context lines imperfectly (trailing blanks dropped, indentation
 * re-flowed, a typographic dash or quote turned into ASCII), so a block is looked for with increasing tolerance: exact,
 * then ignoring trailing whitespace, then ignoring surrounding whitespace, then also reading Unicode punctuation as
 * its ASCII look-alike. The first level that matches anywhere wins, so an exact match is never passed over for a
 * fuzzy one earlier in the file.
 */

type Normalize = (line: string) => string;

/** Dashes, quotes and spaces that models and editors swap for one another. */
const LOOK_ALIKES: ReadonlyArray<[RegExp, string]> = [
  [/[\u2010-\u2015\u2212]/g, "-"],
  [/[\u2018\u2019\u201a\u201b]/g, "'"],
  [/[\u201c\u201d\u201e\u201f]/g, '"'],
  [/[\u00a0\u2002-\u200a\u202f\u205f\u3000]/g, " "],
  [/\u2026/g, "..."],
];

function asciiPunctuation(line: string): string {
  let out = line.trim();
  for (const [pattern, replacement] of LOOK_ALIKES) out = out.replace(pattern, replacement);
  return out;
}

const LEVELS: readonly Normalize[] = [(line) => line, (line) => line.trimEnd(), (line) => line.trim(), asciiPunctuation];

function matchesAt(lines: readonly string[], block: readonly string[], at: number, normalize: Normalize): boolean {
  for (let k = 0; k < block.length; k++) if (normalize(lines[at + k]!) !== normalize(block[k]!)) return false;
  return true;
}

/**
 * The index at which `block` (non-empty) occurs in `lines`, searching from `from`; with `atEnd`, a match that ends at
 * the last line is preferred (the `*** End of File` hunks). -1 when it occurs nowhere from there.
 */
export function seekBlock(lines: readonly string[], block: readonly string[], from: number, atEnd = false): number {
  const last = lines.length - block.length;
  if (last < 0) return -1;
  if (atEnd && last >= from) {
    for (const normalize of LEVELS) if (matchesAt(lines, block, last, normalize)) return last;
  }
  for (const normalize of LEVELS) {
    for (let at = Math.max(0, from); at <= last; at++) if (matchesAt(lines, block, at, normalize)) return at;
  }
  return -1;
}

/**
 * The line an `@@` anchor names, from `from` on: equal (exactly, then ignoring whitespace and punctuation look-alikes),
 * else the first line that starts with it (`@@ def total` for `def total(items):`). -1 when none does.
 */
export function seekAnchor(lines: readonly string[], anchor: string, from: number): number {
  for (const normalize of LEVELS) {
    const wanted = normalize(anchor);
    for (let at = Math.max(0, from); at < lines.length; at++) if (normalize(lines[at]!) === wanted) return at;
  }
  const prefix = asciiPunctuation(anchor);
  if (prefix === "") return -1;
  for (let at = Math.max(0, from); at < lines.length; at++) if (asciiPunctuation(lines[at]!).startsWith(prefix)) return at;
  return -1;
}
