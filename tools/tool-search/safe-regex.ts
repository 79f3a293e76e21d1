/**
 * A linear-time regular-expression matcher for patterns written by a model (`service:tool_search`).
 *
 * JavaScript's RegExp backtracks: `(a+)+b` or even `.*.*.*x` over a few kilobytes runs for seconds to hours, blocks
 * the event loop, and cannot be interrupted (a Worker running it keeps burning its core after `terminate()`). So the
 * pattern is only *checked* with RegExp (syntax errors read like JavaScript's), then parsed here and run as a Thompson
 * NFA (Pike VM without captures): every text position is visited once with at most one thread per program
 * instruction, so a search costs at most `text length × program size` steps, whatever the pattern. A step budget
 * bounds the whole search on top of that (the caller catches `RegexBudgetError`).
 *
 * Semantics: JavaScript's (no `u` flag), always case-insensitive and multi-line (`^`/`$` match at line starts and
 * ends; `.` does not cross a line). Supported: literals and escapes, `.`, classes `[…]`/`[^…]` with ranges and
 * `\d\w\s\D\W\S`, groups `(…)`, `(?:…)`, `(?<name>…)`, alternation, `* + ? {n} {n,} {n,m}` (lazy forms too; with
 * a test-only matcher they mean the same), anchors `^ $ \b \B`. Refused with a `PatternError` naming the feature:
 * backreferences (`\1`, `\k<name>`) and lookaround (`(?=`, `(?!`, `(?<=`, `(?<!`), which no automaton can run in linear
 * time, plus `\c` control escapes and inline modifier groups.
 */

/** The pattern is not valid, or uses a feature this matcher refuses; the message says which. */
export class PatternError extends Error {
  override readonly name = "PatternError";
}

/** A search exceeded its step budget. */
export class RegexBudgetError extends Error {
  override readonly name = "RegexBudgetError";
}

/** Instructions of the compiled program, at most this many (bounded repetition is unrolled). */
export const MAX_PROGRAM = 2_000;
/** Largest `{n,m}` bound accepted. */
export const MAX_REPEAT = 1_000;

/** Tests one text code unit, given with its canonical (upper) and lower-case forms. */
type Pred = (c: number, canon: number, lower: number) => boolean;
type AssertKind = "bol" | "eol" | "word" | "notword";

type Node =
  | { t: "empty" }
  | { t: "char"; pred: Pred }
  | { t: "cat"; items: Node[] }
  | { t: "alt"; options: Node[] }
  | { t: "rep"; node: Node; min: number; max: number }
  | { t: "assert"; kind: AssertKind };

type Inst =
  | { op: "char"; pred: Pred }
  | { op: "split"; x: number; y: number }
  | { op: "jmp"; x: number }
  | { op: "assert"; kind: AssertKind }
  | { op: "match" };

// ---------------------------------------------------------------- character sets

const isDigit = (c: number) => c >= 48 && c <= 57;
const isWordChar = (c: number) => isDigit(c) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
const isLineTerminator = (c: number) => c === 10 || c === 13 || c === 0x2028 || c === 0x2029;
const isSpace = (c: number) =>
  c === 9 || c === 10 || c === 11 || c === 12 || c === 13 || c === 32 || c === 0xa0 || c === 0x1680 ||
  (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;

/**
 * JavaScript's case canonicalisation without the `u` flag: the upper case when it is one code unit, except that a
 * non-ASCII character never folds into ASCII (so "ſ" does not match "s"). `lowerOf` is the same rule the other way,
 * used for classes (`[a-z]` must match "K").
 */
function canonical(c: number): number {
  if (c < 128) return c >= 97 && c <= 122 ? c - 32 : c;
  const upper = String.fromCharCode(c).toUpperCase();
  return upper.length === 1 && upper.charCodeAt(0) >= 128 ? upper.charCodeAt(0) : c;
}
function lowerOf(c: number): number {
  if (c < 128) return c >= 65 && c <= 90 ? c + 32 : c;
  const lower = String.fromCharCode(c).toLowerCase();
  return lower.length === 1 && lower.charCodeAt(0) >= 128 ? lower.charCodeAt(0) : c;
}

/** A set of code units tested on the character and its case variants (so `[^a]` rejects `A`, as `/[^a]/i` does). */
function caseless(raw: (c: number) => boolean, negated: boolean): Pred {
  return (c, canon, lower) => (raw(c) || raw(canon) || raw(lower)) !== negated;
}

const CLASS_ESCAPES: Record<string, (c: number) => boolean> = {
  d: isDigit,
  D: (c) => !isDigit(c),
  w: isWordChar,
  W: (c) => !isWordChar(c),
  s: isSpace,
  S: (c) => !isSpace(c),
};

// ---------------------------------------------------------------- parser

class Parser {
  private pos = 0;
  constructor(private readonly src: string) {}

  parse(): Node {
    const node = this.alternation();
    if (this.pos < this.src.length) throw new PatternError(`unexpected "${this.src[this.pos]}" at ${this.pos}`);
    return node;
  }

  private peek(offset = 0): string | undefined {
    return this.src[this.pos + offset];
  }

  private alternation(): Node {
    const options = [this.concatenation()];
    while (this.peek() === "|") {
      this.pos++;
      options.push(this.concatenation());
    }
    return options.length === 1 ? options[0]! : { t: "alt", options };
  }

  private concatenation(): Node {
    const items: Node[] = [];
    while (this.pos < this.src.length && this.peek() !== "|" && this.peek() !== ")") {
      const atom = this.atom();
      items.push(this.quantified(atom));
    }
    if (items.length === 0) return { t: "empty" };
    return items.length === 1 ? items[0]! : { t: "cat", items };
  }

  private quantified(atom: Node): Node {
    let min: number;
    let max: number;
    const c = this.peek();
    if (c === "*") [min, max] = [0, Infinity];
    else if (c === "+") [min, max] = [1, Infinity];
    else if (c === "?") [min, max] = [0, 1];
    else if (c === "{") {
      const braces = /^\{(\d+)(,(\d*))?\}/.exec(this.src.slice(this.pos));
      if (!braces) return atom; // a literal "{" (Annex B); the atom step reads it
      min = Number(braces[1]);
      max = braces[2] === undefined ? min : braces[3] === "" ? Infinity : Number(braces[3]);
      if (min > MAX_REPEAT || (max !== Infinity && max > MAX_REPEAT)) throw new PatternError(`repetition count over ${MAX_REPEAT}`);
      this.pos += braces[0].length - 1;
    } else return atom;
    this.pos++;
    if (this.peek() === "?") this.pos++; // lazy: same language, and only whether it matches is asked
    return { t: "rep", node: atom, min, max };
  }

  private atom(): Node {
    const c = this.src[this.pos++]!;
    switch (c) {
      case "(":
        return this.group();
      case "[":
        return this.characterClass();
      case ".":
        return { t: "char", pred: (code) => !isLineTerminator(code) };
      case "^":
        return { t: "assert", kind: "bol" };
      case "$":
        return { t: "assert", kind: "eol" };
      case "\\":
        return this.escape();
      case "*":
      case "+":
      case "?":
        throw new PatternError(`nothing to repeat at ${this.pos - 1}`);
      default:
        return literal(c.charCodeAt(0));
    }
  }

  private group(): Node {
    if (this.peek() === "?") {
      const next = this.peek(1);
      if (next === ":") this.pos += 2;
      else if (next === "=" || next === "!" || (next === "<" && (this.peek(2) === "=" || this.peek(2) === "!"))) {
        throw new PatternError("lookahead and lookbehind are not supported");
      } else if (next === "<") {
        const end = this.src.indexOf(">", this.pos);
        if (end < 0) throw new PatternError("unterminated group name");
        this.pos = end + 1;
      } else throw new PatternError("this group syntax is not supported");
    }
    const inner = this.alternation();
    if (this.peek() !== ")") throw new PatternError("unterminated group");
    this.pos++;
    return inner;
  }

  private escape(): Node {
    const c = this.src[this.pos++];
    if (c === undefined) throw new PatternError("\\ at end of pattern");
    if (c === "b") return { t: "assert", kind: "word" };
    if (c === "B") return { t: "assert", kind: "notword" };
    if (c in CLASS_ESCAPES) return { t: "char", pred: caseless(CLASS_ESCAPES[c]!, false) };
    return literal(this.escapedCode(c));
  }

  /** The code unit of an escape that stands for one character (`\n`, `\x41`, `\.`); refuses backreferences. */
  private escapedCode(c: string): number {
    switch (c) {
      case "n":
        return 10;
      case "r":
        return 13;
      case "t":
        return 9;
      case "v":
        return 11;
      case "f":
        return 12;
      case "0":
        if (isDigit(this.src.charCodeAt(this.pos))) throw new PatternError("octal escapes are not supported");
        return 0;
      case "x":
      case "u": {
        const digits = c === "x" ? 2 : 4;
        const hex = this.src.slice(this.pos, this.pos + digits);
        if (hex.length === digits && /^[0-9a-fA-F]+$/.test(hex)) {
          this.pos += digits;
          return parseInt(hex, 16);
        }
        return c.charCodeAt(0); // Annex B: "\x" without hex digits is "x"
      }
      case "k":
        throw new PatternError("backreferences are not supported");
      case "c":
        throw new PatternError("\\c control escapes are not supported");
      default:
        if (c >= "1" && c <= "9") throw new PatternError("backreferences are not supported");
        return c.charCodeAt(0); // identity escape: "\." is ".", "\a" is "a" (Annex B)
    }
  }

  private characterClass(): Node {
    const negated = this.peek() === "^";
    if (negated) this.pos++;
    const singles = new Set<number>();
    const ranges: Array<[number, number]> = [];
    const sets: Array<(c: number) => boolean> = [];
    while (this.peek() !== "]") {
      if (this.pos >= this.src.length) throw new PatternError("unterminated character class");
      const from = this.classAtom();
      if (this.peek() === "-" && this.peek(1) !== "]" && this.peek(1) !== undefined) {
        this.pos++;
        const to = this.classAtom();
        if (typeof from === "number" && typeof to === "number") {
          if (from > to) throw new PatternError("range out of order in character class");
          ranges.push([from, to]);
          continue;
        }
        // Annex B: "[\w-z]" is \w, "-" and "z"
        for (const part of [from, 45, to]) typeof part === "number" ? singles.add(part) : sets.push(part);
        continue;
      }
      typeof from === "number" ? singles.add(from) : sets.push(from);
    }
    this.pos++;
    const raw = (code: number) => singles.has(code) || ranges.some(([a, b]) => code >= a && code <= b) || sets.some((s) => s(code));
    return { t: "char", pred: caseless(raw, negated) };
  }

  /** One member of a class: a code unit, or a predefined set (`\d`). */
  private classAtom(): number | ((c: number) => boolean) {
    const c = this.src[this.pos++]!;
    if (c !== "\\") return c.charCodeAt(0);
    const e = this.src[this.pos++];
    if (e === undefined) throw new PatternError("\\ at end of pattern");
    if (e === "b") return 8; // backspace inside a class
    if (e === "-") return 45;
    if (e in CLASS_ESCAPES) return CLASS_ESCAPES[e]!;
    return this.escapedCode(e);
  }
}

function literal(code: number): Node {
  const canon = canonical(code);
  return { t: "char", pred: (_c, c) => c === canon };
}

// ---------------------------------------------------------------- compiler

function sizeOf(node: Node): number {
  switch (node.t) {
    case "empty":
      return 0;
    case "char":
    case "assert":
      return 1;
    case "cat":
      return node.items.reduce((n, item) => n + sizeOf(item), 0);
    case "alt":
      return node.options.reduce((n, option) => n + sizeOf(option) + 2, 0);
    case "rep": {
      const inner = sizeOf(node.node);
      const optional = node.max === Infinity ? inner + 2 : (node.max - node.min) * (inner + 1);
      return node.min * inner + optional;
    }
  }
}

function emit(node: Node, prog: Inst[]): void {
  switch (node.t) {
    case "empty":
      return;
    case "char":
      prog.push({ op: "char", pred: node.pred });
      return;
    case "assert":
      prog.push({ op: "assert", kind: node.kind });
      return;
    case "cat":
      for (const item of node.items) emit(item, prog);
      return;
    case "alt": {
      const jumps: Array<{ op: "jmp"; x: number }> = [];
      node.options.forEach((option, i) => {
        if (i < node.options.length - 1) {
          const split = { op: "split" as const, x: prog.length + 1, y: 0 };
          prog.push(split);
          emit(option, prog);
          const jump = { op: "jmp" as const, x: 0 };
          prog.push(jump);
          jumps.push(jump);
          split.y = prog.length;
        } else emit(option, prog);
      });
      for (const jump of jumps) jump.x = prog.length;
      return;
    }
    case "rep": {
      for (let i = 0; i < node.min; i++) emit(node.node, prog);
      if (node.max === Infinity) {
        const loop = prog.length;
        const split = { op: "split" as const, x: loop + 1, y: 0 };
        prog.push(split);
        emit(node.node, prog);
        prog.push({ op: "jmp", x: loop });
        split.y = prog.length;
        return;
      }
      const splits: Array<{ op: "split"; x: number; y: number }> = [];
      for (let i = node.min; i < node.max; i++) {
        const split = { op: "split" as const, x: prog.length + 1, y: 0 };
        prog.push(split);
        splits.push(split);
        emit(node.node, prog);
      }
      for (const split of splits) split.y = prog.length;
      return;
    }
  }
}

// ---------------------------------------------------------------- matcher

export interface SafeRegex {
  /** Whether the pattern matches somewhere in `text`; counts its steps against the shared budget. */
  test(text: string): boolean;
  /** Steps used so far by this matcher. */
  readonly steps: number;
}

export interface SafeRegexOptions {
  /** Steps (thread visits) allowed over all `test` calls; over it `test` throws RegexBudgetError. */
  budget?: number;
}

/** Checks and compiles `pattern` (case-insensitive, multi-line); throws PatternError for bad or refused patterns. */
export function compileSafeRegex(pattern: string, options: SafeRegexOptions = {}): SafeRegex {
  try {
    new RegExp(pattern, "i"); // syntax only; never executed
  } catch (error) {
    throw new PatternError((error as Error).message);
  }
  const ast = new Parser(pattern).parse();
  if (sizeOf(ast) + 1 > MAX_PROGRAM) throw new PatternError(`pattern too complex (more than ${MAX_PROGRAM} instructions once repetitions are expanded)`);
  const prog: Inst[] = [];
  emit(ast, prog);
  prog.push({ op: "match" });
  const budget = options.budget ?? Infinity;
  const marks = new Uint32Array(prog.length);
  let generation = 0;
  let steps = 0;

  function holds(kind: AssertKind, text: string, pos: number): boolean {
    const before = pos > 0 ? text.charCodeAt(pos - 1) : NaN;
    const after = pos < text.length ? text.charCodeAt(pos) : NaN;
    switch (kind) {
      case "bol":
        return pos === 0 || isLineTerminator(before);
      case "eol":
        return pos === text.length || isLineTerminator(after);
      case "word":
      case "notword": {
        const boundary = (pos > 0 && isWordChar(before)) !== (pos < text.length && isWordChar(after));
        return kind === "word" ? boundary : !boundary;
      }
    }
  }

  /** Adds the thread at `start` and everything reachable from it without reading; true when that reaches `match`. */
  function add(list: number[], start: number, text: string, pos: number): boolean {
    const stack = [start];
    while (stack.length > 0) {
      const pc = stack.pop()!;
      if (marks[pc] === generation) continue;
      marks[pc] = generation;
      if (++steps > budget) throw new RegexBudgetError("search exceeded its step budget");
      const inst = prog[pc]!;
      switch (inst.op) {
        case "match":
          return true;
        case "char":
          list.push(pc);
          break;
        case "jmp":
          stack.push(inst.x);
          break;
        case "split":
          stack.push(inst.y, inst.x);
          break;
        case "assert":
          if (holds(inst.kind, text, pos)) stack.push(pc + 1);
          break;
      }
    }
    return false;
  }

  return {
    get steps() {
      return steps;
    },
    test(text: string): boolean {
      generation++;
      let current: number[] = [];
      for (let pos = 0; ; pos++) {
        if (add(current, 0, text, pos)) return true; // unanchored: a new attempt starts at every position
        if (pos === text.length) return false;
        const c = text.charCodeAt(pos);
        const canon = canonical(c);
        const lower = lowerOf(c);
        generation++;
        const next: number[] = [];
        for (const pc of current) {
          steps++;
          if ((prog[pc] as { pred: Pred }).pred(c, canon, lower) && add(next, pc + 1, text, pos + 1)) return true;
        }
        current = next;
      }
    },
  };
}
