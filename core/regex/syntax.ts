/**
 * What both dialect parsers (re2.ts, ecmascript.ts) build and program.ts compiles: a small AST whose every node
 * knows the size of the program it compiles to. Sizes are computed as nodes are made, so a pattern whose program
 * would pass its cap is refused while it is parsed: counted repetitions nest by reference, never by copy, so neither
 * parsing nor the refusal costs more than the pattern's length, however the counts multiply (`((a{1000}){1000}){1000}`).
 */

/** The pattern is not valid, or uses a feature the dialect refuses; the message says which and where. */
export class PatternError extends Error {
  override readonly name = "PatternError";
}

/** Largest `{n,m}` bound (RE2's, and the one JavaScript patterns get here). */
export const MAX_REPEAT = 1_000;

/** Tests one character: a UTF-16 code unit, or a code point for ECMAScript patterns with the `u` flag. */
export type Pred = (c: number) => boolean;

export type AssertKind =
  | "text-start"
  | "text-end"
  /** After / before `\n` (RE2's `(?m)`). */
  | "line-start"
  | "line-end"
  /** After / before any ECMAScript line terminator (`\n \r U+2028 U+2029`, JavaScript's `m` flag). */
  | "js-line-start"
  | "js-line-end"
  | "word"
  | "not-word";

/**
 * A character that stands for itself, for the plain-string fast path (literal-run.ts): `unit` is the code unit as
 * `fold` maps it (undefined: compared exactly); the predicate is exactly `fold(c) === unit`.
 */
export interface Literal {
  unit: number;
  fold: ((c: number) => number) | undefined;
}

export type Node =
  | { t: "empty"; size: number }
  | { t: "char"; pred: Pred; literal?: Literal; size: number }
  | { t: "cat"; items: Node[]; size: number }
  | { t: "alt"; options: Node[]; size: number }
  | { t: "rep"; node: Node; min: number; max: number; size: number }
  | { t: "assert"; kind: AssertKind; size: number };

/** Builds nodes with their program sizes, refusing any that would make the program larger than `maxProgram`. */
export class NodeFactory {
  constructor(readonly maxProgram: number) {}

  empty(): Node {
    return { t: "empty", size: 0 };
  }

  char(pred: Pred, literal?: Literal): Node {
    return literal ? { t: "char", pred, literal, size: 1 } : { t: "char", pred, size: 1 };
  }

  assert(kind: AssertKind): Node {
    return { t: "assert", kind, size: 1 };
  }

  cat(items: Node[]): Node {
    if (items.length === 0) return this.empty();
    if (items.length === 1) return items[0]!;
    return this.checked({ t: "cat", items, size: items.reduce((n, item) => n + item.size, 0) });
  }

  /** A split and a jump around each option (one pair more than emitted: the count the caps were set with). */
  alt(options: Node[]): Node {
    if (options.length === 1) return options[0]!;
    return this.checked({ t: "alt", options, size: options.reduce((n, option) => n + option.size + 2, 0) });
  }

  /** `min` copies, then a loop (`max` infinite) or `max - min` optional copies, each behind a split. */
  rep(node: Node, min: number, max: number): Node {
    const inner = node.size;
    const optional = max === Infinity ? inner + 2 : (max - min) * (inner + 1);
    return this.checked({ t: "rep", node, min, max, size: min * inner + optional });
  }

  /** The whole program: the pattern's nodes and the final `match`. */
  program(root: Node): number {
    const size = root.size + 1;
    if (size > this.maxProgram) throw this.tooComplex();
    return size;
  }

  private checked(node: Node): Node {
    if (node.size + 1 > this.maxProgram) throw this.tooComplex();
    return node;
  }

  private tooComplex(): PatternError {
    return new PatternError(`pattern too complex (more than ${this.maxProgram} instructions once repetitions are expanded)`);
  }
}

// ---------------------------------------------------------------- character sets both dialects share

export const isDigit = (c: number): boolean => c >= 48 && c <= 57;
export const isWordChar = (c: number): boolean => isDigit(c) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
export const isLineBreak = (c: number): boolean => c === 10;
export const isLineTerminator = (c: number): boolean => c === 10 || c === 13 || c === 0x2028 || c === 0x2029;
export const isHighSurrogate = (c: number): boolean => c >= 0xd800 && c <= 0xdbff;
export const isLowSurrogate = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff;

/** A per-code-unit mapping computed on first use and cached (the matcher calls case folds per character). */
export function cachedUnitMap(compute: (c: number) => number): (c: number) => number {
  let table: Int32Array | undefined;
  return (c) => {
    if (c > 0xffff) return compute(c);
    table ??= new Int32Array(65_536).fill(-1);
    let v = table[c]!;
    if (v < 0) v = table[c] = compute(c);
    return v;
  };
}

/** A per-code-unit predicate computed on first use and cached (0 unknown, 1 yes, 2 no). */
export function cachedUnitSet(compute: Pred): Pred {
  let table: Uint8Array | undefined;
  return (c) => {
    if (c > 0xffff) return compute(c);
    table ??= new Uint8Array(65_536);
    let v = table[c]!;
    if (v === 0) v = table[c] = compute(c) ? 1 : 2;
    return v === 1;
  };
}

/** `\p{…}` / `\P{…}` through the runtime's own Unicode tables; checked here so that a bad name is a PatternError. */
export function unicodeProperty(name: string, negated: boolean, escape = "p"): Pred {
  let re: RegExp;
  try {
    re = new RegExp(`^\\p{${name}}$`, "u");
  } catch {
    throw new PatternError(`unknown Unicode class \\${escape}{${name}}`);
  }
  return cachedUnitSet((c) => re.test(String.fromCodePoint(c)) !== negated);
}

/**
 * The members of a character class: single characters and ranges (merged into sorted ranges, searched by halves, so
 * a class of thousands of ranges costs a few comparisons per character, not thousands), plus named sets (`\d`,
 * `[:alpha:]`, `\p{L}`), each kept once however often it is listed.
 */
export class ClassBuilder {
  private readonly bounds: Array<[number, number]> = [];
  private readonly sets = new Map<string, Pred>();

  add(c: number): void {
    this.bounds.push([c, c]);
  }

  range(from: number, to: number): void {
    this.bounds.push([from, to]);
  }

  set(key: string, pred: Pred): void {
    if (!this.sets.has(key)) this.sets.set(key, pred);
  }

  build(): Pred {
    const sorted = this.bounds.sort((a, b) => a[0] - b[0]);
    const merged: number[] = [];
    for (const [from, to] of sorted) {
      const last = merged.length - 1;
      if (last > 0 && from <= merged[last]! + 1) merged[last] = Math.max(merged[last]!, to);
      else merged.push(from, to);
    }
    const ranges = Int32Array.from(merged);
    const sets = [...this.sets.values()];
    const inRanges = (c: number): boolean => {
      let lo = 0;
      let hi = ranges.length / 2 - 1;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        if (c < ranges[2 * mid]!) hi = mid - 1;
        else if (c > ranges[2 * mid + 1]!) lo = mid + 1;
        else return true;
      }
      return false;
    };
    if (sets.length === 0) return inRanges;
    return (c) => inRanges(c) || sets.some((s) => s(c));
  }
}
