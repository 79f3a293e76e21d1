/**
 * The RE2 dialect (guardrail `content_filters`, as the peer documents them: "no lookaround and no backreferences, patterns capped at
 * 100k characters"): literals and escapes, `.`, classes `[…]` / `[^…]` with ranges, `\d \w \s` and their negations,
 * POSIX `[[:alpha:]]`, Unicode `\p{L}` / `\P{L}`, groups `(…)`, `(?:…)`, `(?P<n>…)`, `(?<n>…)`, alternation,
 * `* + ? {n} {n,} {n,m}` (lazy forms too: only where matches are counts, not which one), anchors `^ $ \A \z \b \B`,
 * and flags `(?i)`, `(?m)`, `(?s)` (also scoped: `(?i:…)`, negated: `(?-i)`). Case-sensitive by default, like RE2;
 * text is read as UTF-16 code units. Refused with a PatternError that names the feature: lookaround,
 * backreferences, and anything else no automaton runs in linear time.
 */
import {
  cachedUnitMap,
  ClassBuilder,
  isDigit,
  isLineBreak,
  isWordChar,
  MAX_REPEAT,
  NodeFactory,
  PatternError,
  unicodeProperty,
  type Node,
  type Pred,
} from "./syntax.ts";

/** Longest pattern accepted. */
export const MAX_PATTERN_LENGTH = 100_000;

interface Flags {
  i: boolean;
  m: boolean;
  s: boolean;
}

const isSpace = (c: number): boolean => c === 9 || c === 10 || c === 11 || c === 12 || c === 13 || c === 32;

const CLASS_ESCAPES: Record<string, Pred> = {
  d: isDigit,
  D: (c) => !isDigit(c),
  w: isWordChar,
  W: (c) => !isWordChar(c),
  s: isSpace,
  S: (c) => !isSpace(c),
};

const POSIX: Record<string, Pred> = {
  alnum: (c) => isDigit(c) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122),
  alpha: (c) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122),
  ascii: (c) => c < 128,
  blank: (c) => c === 32 || c === 9,
  cntrl: (c) => c < 32 || c === 127,
  digit: isDigit,
  graph: (c) => c > 32 && c < 127,
  lower: (c) => c >= 97 && c <= 122,
  print: (c) => c >= 32 && c < 127,
  punct: (c) => (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126),
  space: isSpace,
  upper: (c) => c >= 65 && c <= 90,
  word: isWordChar,
  xdigit: (c) => isDigit(c) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102),
};

/** Simple case folding of one code unit (`(?i)`). */
const lowerOf = cachedUnitMap((c) => {
  if (c < 128) return c >= 65 && c <= 90 ? c + 32 : c;
  const s = String.fromCharCode(c).toLowerCase();
  return s.length === 1 ? s.charCodeAt(0) : c;
});
const upperOf = cachedUnitMap((c) => {
  if (c < 128) return c >= 97 && c <= 122 ? c - 32 : c;
  const s = String.fromCharCode(c).toUpperCase();
  return s.length === 1 ? s.charCodeAt(0) : c;
});

function caseless(raw: Pred): Pred {
  return (c) => raw(c) || raw(lowerOf(c)) || raw(upperOf(c));
}

/** Parses an RE2 pattern; `maxProgram` bounds the compiled program (refused while parsing). */
export function parseRe2(source: string, maxProgram: number): { root: Node; size: number } {
  if (source.length > MAX_PATTERN_LENGTH) throw new PatternError(`pattern longer than ${MAX_PATTERN_LENGTH} characters`);
  const nodes = new NodeFactory(maxProgram);
  const root = new Re2Parser(source, nodes).parse();
  return { root, size: nodes.program(root) };
}

class Re2Parser {
  private pos = 0;
  constructor(
    private readonly src: string,
    private readonly nodes: NodeFactory,
  ) {}

  parse(): Node {
    const node = this.alternation({ i: false, m: false, s: false });
    if (this.pos < this.src.length) throw new PatternError(`unmatched ")" at ${this.pos}`);
    return node;
  }

  private peek(offset = 0): string | undefined {
    return this.src[this.pos + offset];
  }

  /** `flags` is this group's: a `(?i)` inside it changes them for the rest of the group (RE2). */
  private alternation(outer: Flags): Node {
    const flags = { ...outer };
    const options = [this.concatenation(flags)];
    while (this.peek() === "|") {
      this.pos++;
      options.push(this.concatenation(flags));
    }
    return this.nodes.alt(options);
  }

  private concatenation(flags: Flags): Node {
    const items: Node[] = [];
    while (this.pos < this.src.length && this.peek() !== "|" && this.peek() !== ")") {
      const atom = this.atom(flags);
      if (atom === undefined) continue; // a flag group: no node
      items.push(this.quantified(atom));
    }
    return this.nodes.cat(items);
  }

  private quantified(atom: Node): Node {
    const bounds = this.quantifier();
    if (!bounds) return atom;
    if (atom.t === "assert" || atom.t === "empty") throw new PatternError(`missing argument to repetition operator at ${this.pos - 1}`);
    if (this.peek() === "+") throw new PatternError(`possessive quantifiers are not supported (at ${this.pos})`);
    if (this.peek() === "?") this.pos++; // lazy: the same set of matches, and only the set matters here
    // `a**` is an error in RE2 (and in JavaScript); `(a*)*` is fine.
    if (this.quantifierAhead()) throw new PatternError(`bad repetition operator at ${this.pos}`);
    return this.nodes.rep(atom, bounds[0], bounds[1]);
  }

  /** Reads `* + ? {n} {n,} {n,m}` when one is next. */
  private quantifier(): [number, number] | undefined {
    const c = this.peek();
    if (c === "*" || c === "+" || c === "?") {
      this.pos++;
      return c === "*" ? [0, Infinity] : c === "+" ? [1, Infinity] : [0, 1];
    }
    if (c !== "{") return undefined;
    const braces = /^\{(\d+)(,(\d*))?\}/.exec(this.src.slice(this.pos, this.pos + 24));
    if (!braces) return undefined; // a literal "{", as RE2 reads it
    const min = Number(braces[1]);
    const max = braces[2] === undefined ? min : braces[3] === "" ? Infinity : Number(braces[3]);
    if (min > MAX_REPEAT || (max !== Infinity && max > MAX_REPEAT)) throw new PatternError(`repetition count over ${MAX_REPEAT} at ${this.pos}`);
    if (max < min) throw new PatternError(`bad repetition range at ${this.pos}`);
    this.pos += braces[0].length;
    return [min, max];
  }

  private quantifierAhead(): boolean {
    const c = this.peek();
    return c === "*" || c === "+" || c === "?" || (c === "{" && /^\{\d+(,\d*)?\}/.test(this.src.slice(this.pos, this.pos + 24)));
  }

  private atom(flags: Flags): Node | undefined {
    const c = this.src[this.pos++]!;
    switch (c) {
      case "(":
        return this.group(flags);
      case "[":
        return this.characterClass(flags);
      case ".":
        return this.nodes.char(flags.s ? () => true : (code) => !isLineBreak(code));
      case "^":
        return this.nodes.assert(flags.m ? "line-start" : "text-start");
      case "$":
        return this.nodes.assert(flags.m ? "line-end" : "text-end");
      case "\\":
        return this.escape(flags);
      case "*":
      case "+":
      case "?":
        throw new PatternError(`missing argument to repetition operator at ${this.pos - 1}`);
      default:
        // A surrogate pair is one character to the author: two code units in sequence.
        return this.literal(c.charCodeAt(0), flags);
    }
  }

  private group(flags: Flags): Node | undefined {
    let inner = flags;
    if (this.peek() === "?") {
      const next = this.peek(1);
      if (next === "=" || next === "!" || (next === "<" && (this.peek(2) === "=" || this.peek(2) === "!"))) {
        throw new PatternError(`lookaround is not supported (at ${this.pos - 1})`);
      }
      if (next === "P" || next === "<") {
        const open = next === "P" ? this.pos + 2 : this.pos + 1;
        if (this.src[open] !== "<") throw new PatternError(`bad named group at ${this.pos - 1}`);
        const end = this.src.indexOf(">", open);
        if (end < 0 || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(this.src.slice(open + 1, end))) throw new PatternError(`bad group name at ${this.pos - 1}`);
        this.pos = end + 1;
      } else if (next === ":") {
        this.pos += 2;
      } else {
        // Flags: (?i) (?im-s) (?i:…)
        const m = /^\?([ims]*)(?:-([ims]+))?([:)])/.exec(this.src.slice(this.pos, this.pos + 12));
        if (!m) throw new PatternError(`unsupported group syntax at ${this.pos - 1}`);
        this.pos += m[0].length;
        const set = { ...flags };
        for (const f of m[1]!) set[f as keyof Flags] = true;
        for (const f of m[2] ?? "") set[f as keyof Flags] = false;
        if (m[3] === ")") {
          // Applies to the rest of the enclosing group.
          Object.assign(flags, set);
          return undefined;
        }
        inner = set;
      }
    }
    const node = this.alternation(inner);
    if (this.peek() !== ")") throw new PatternError(`missing ")" for the group opened before ${this.pos}`);
    this.pos++;
    return node;
  }

  private escape(flags: Flags): Node {
    const c = this.src[this.pos++];
    if (c === undefined) throw new PatternError("trailing \\ at end of pattern");
    if (c === "b") return this.nodes.assert("word");
    if (c === "B") return this.nodes.assert("not-word");
    if (c === "A") return this.nodes.assert("text-start");
    if (c === "z") return this.nodes.assert("text-end");
    if (c in CLASS_ESCAPES) return this.nodes.char(CLASS_ESCAPES[c]!);
    if (c === "p" || c === "P") return this.nodes.char(this.property(c === "P"));
    return this.literal(this.escapedCode(c), flags);
  }

  private property(negated: boolean): Pred {
    if (this.peek() === "{") {
      const end = this.src.indexOf("}", this.pos);
      if (end < 0) throw new PatternError(`unterminated \\p{ at ${this.pos}`);
      const name = this.src.slice(this.pos + 1, end);
      this.pos = end + 1;
      return unicodeProperty(name, negated);
    }
    const name = this.src[this.pos++];
    if (name === undefined) throw new PatternError("trailing \\p");
    return unicodeProperty(name, negated);
  }

  /** A one-character escape (`\n`, `\x41`, `\x{263A}`, `\.`); refuses backreferences and unknown letters. */
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
      case "a":
        return 7;
      case "0":
        return 0;
      case "x": {
        if (this.peek() === "{") {
          const end = this.src.indexOf("}", this.pos);
          const hex = end < 0 ? "" : this.src.slice(this.pos + 1, end);
          if (!/^[0-9a-fA-F]{1,4}$/.test(hex)) throw new PatternError(`bad \\x{…} escape at ${this.pos}`);
          this.pos = end + 1;
          return parseInt(hex, 16);
        }
        const hex = this.src.slice(this.pos, this.pos + 2);
        if (!/^[0-9a-fA-F]{2}$/.test(hex)) throw new PatternError(`bad \\x escape at ${this.pos}`);
        this.pos += 2;
        return parseInt(hex, 16);
      }
      case "u": {
        const hex = this.src.slice(this.pos, this.pos + 4);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) throw new PatternError(`bad \\u escape at ${this.pos}`);
        this.pos += 4;
        return parseInt(hex, 16);
      }
      case "k":
        throw new PatternError(`backreferences are not supported (at ${this.pos - 2})`);
      default:
        if (c >= "1" && c <= "9") throw new PatternError(`backreferences are not supported (at ${this.pos - 2})`);
        // Only punctuation may be escaped to stand for itself (RE2): `\q` is more likely a typo than a `q`.
        if (/[A-Za-z0-9]/.test(c)) throw new PatternError(`invalid escape \\${c} at ${this.pos - 2}`);
        return c.charCodeAt(0);
    }
  }

  private characterClass(flags: Flags): Node {
    const negated = this.peek() === "^";
    if (negated) this.pos++;
    const members = new ClassBuilder();
    let first = true;
    while (this.peek() !== "]" || first) {
      if (this.pos >= this.src.length) throw new PatternError("missing ] in character class");
      first = false;
      if (this.peek() === "[" && this.peek(1) === ":") {
        const end = this.src.indexOf(":]", this.pos + 2);
        const raw = end < 0 ? "" : this.src.slice(this.pos + 2, end);
        const name = raw.startsWith("^") ? raw.slice(1) : raw;
        const set = POSIX[name];
        if (!set) throw new PatternError(`unknown POSIX class [:${raw}:] at ${this.pos}`);
        members.set(`[:${raw}:]`, raw.startsWith("^") ? (c) => !set(c) : set);
        this.pos = end + 2;
        continue;
      }
      const from = this.classAtom();
      if (this.peek() === "-" && this.peek(1) !== "]" && this.peek(1) !== undefined) {
        this.pos++;
        const to = this.classAtom();
        if (typeof from !== "number" || typeof to !== "number") throw new PatternError(`bad character class range at ${this.pos}`);
        if (from > to) throw new PatternError(`character class range out of order at ${this.pos}`);
        members.range(from, to);
        continue;
      }
      if (typeof from === "number") members.add(from);
      else members.set(from.key, from.pred);
    }
    this.pos++;
    const raw = members.build();
    const folded = flags.i ? caseless(raw) : raw;
    return this.nodes.char(negated ? (c) => !folded(c) : folded);
  }

  /** One member of a class: a code unit, or a named set (`\d`, `\p{L}`) with the key it is kept once under. */
  private classAtom(): number | { key: string; pred: Pred } {
    const start = this.pos;
    const c = this.src[this.pos++]!;
    if (c !== "\\") return c.charCodeAt(0);
    const e = this.src[this.pos++];
    if (e === undefined) throw new PatternError("trailing \\ in character class");
    if (e in CLASS_ESCAPES) return { key: `\\${e}`, pred: CLASS_ESCAPES[e]! };
    if (e === "p" || e === "P") {
      const pred = this.property(e === "P");
      return { key: this.src.slice(start, this.pos), pred };
    }
    if (e === "b") throw new PatternError(`\\b inside a character class at ${this.pos - 2}`);
    return this.escapedCode(e);
  }

  private literal(code: number, flags: Flags): Node {
    if (!flags.i) return this.nodes.char((c) => c === code, { unit: code, fold: undefined });
    // Equal to "lowerOf(c) === lower" (c === code implies it): the fold the plain-string path compares with.
    const lower = lowerOf(code);
    return this.nodes.char((c) => c === code || lowerOf(c) === lower, { unit: lower, fold: lowerOf });
  }
}
