/**
 * The ECMAScript dialect: JavaScript's RegExp syntax and meaning for the flags `i`, `m`, `s` and `u` (tool search's
 * model-written queries run with `im`; JSON Schema `pattern`s with `u`, as Ajv gives them). The pattern is first
 * *checked* with RegExp itself (so syntax errors read like JavaScript's; it is never executed), then parsed here.
 * Supported: literals and escapes, `.`, classes `[…]` / `[^…]` with ranges and `\d\w\s\D\W\S`, groups `(…)`, `(?:…)`,
 * `(?<name>…)`, alternation, `* + ? {n} {n,} {n,m}` (lazy forms too: only whether it matches is asked), anchors
 * `^ $ \b \B`; with `u`, `\u{…}`, `\p{…}` / `\P{…}` and matching by code point. Refused with a PatternError naming the
 * feature: backreferences (`\1`, `\k<name>`) and lookaround, which no automaton runs in linear time, plus `\c`
 * control escapes, octal escapes, inline modifier groups, and `i` with `u` together.
 */
import {
  cachedUnitMap,
  ClassBuilder,
  isDigit,
  isHighSurrogate,
  isLineTerminator,
  isLowSurrogate,
  isWordChar,
  MAX_REPEAT,
  NodeFactory,
  PatternError,
  unicodeProperty,
  type Literal,
  type Node,
  type Pred,
} from "./syntax.ts";

export interface EcmaFlags {
  ignoreCase: boolean;
  multiline: boolean;
  dotAll: boolean;
  unicode: boolean;
}

/** Reads a RegExp flags string; only `i`, `m`, `s` and `u` mean anything to a test. */
export function ecmaFlags(flags: string): EcmaFlags {
  for (const f of flags) if (!"imsu".includes(f)) throw new PatternError(`the ${f} flag is not supported`);
  const parsed = { ignoreCase: flags.includes("i"), multiline: flags.includes("m"), dotAll: flags.includes("s"), unicode: flags.includes("u") };
  if (parsed.ignoreCase && parsed.unicode) throw new PatternError("the i and u flags together are not supported");
  return parsed;
}

const isSpace = (c: number): boolean =>
  c === 9 || c === 10 || c === 11 || c === 12 || c === 13 || c === 32 || c === 0xa0 || c === 0x1680 ||
  (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;

const CLASS_ESCAPES: Record<string, Pred> = {
  d: isDigit,
  D: (c) => !isDigit(c),
  w: isWordChar,
  W: (c) => !isWordChar(c),
  s: isSpace,
  S: (c) => !isSpace(c),
};

/**
 * JavaScript's case canonicalisation without the `u` flag: the upper case when it is one code unit, except that a
 * non-ASCII character never folds into ASCII (so "ſ" does not match "s"). `lowerOf` is the same rule the other way,
 * used for classes (`[a-z]` must match "K").
 */
const canonical = cachedUnitMap((c) => {
  if (c < 128) return c >= 97 && c <= 122 ? c - 32 : c;
  const upper = String.fromCharCode(c).toUpperCase();
  return upper.length === 1 && upper.charCodeAt(0) >= 128 ? upper.charCodeAt(0) : c;
});
const lowerOf = cachedUnitMap((c) => {
  if (c < 128) return c >= 65 && c <= 90 ? c + 32 : c;
  const lower = String.fromCharCode(c).toLowerCase();
  return lower.length === 1 && lower.charCodeAt(0) >= 128 ? lower.charCodeAt(0) : c;
});

/** A set of code units tested on the character and its case variants (so `[^a]` rejects `A`, as `/[^a]/i` does). */
function caseless(raw: Pred, negated: boolean): Pred {
  return (c) => (raw(c) || raw(canonical(c)) || raw(lowerOf(c))) !== negated;
}

/** Checks `source` with RegExp and parses it; `maxProgram` bounds the compiled program (refused while parsing). */
export function parseEcmaScript(source: string, flags: string, maxProgram: number): { root: Node; size: number; unicode: boolean } {
  const parsedFlags = ecmaFlags(flags);
  try {
    new RegExp(source, flags); // syntax only; never executed
  } catch (error) {
    throw new PatternError((error as Error).message);
  }
  const nodes = new NodeFactory(maxProgram);
  const root = new EcmaParser(source, parsedFlags, nodes).parse();
  return { root, size: nodes.program(root), unicode: parsedFlags.unicode };
}

type ClassAtom = number | { key: string; pred: Pred };

class EcmaParser {
  private pos = 0;
  constructor(
    private readonly src: string,
    private readonly flags: EcmaFlags,
    private readonly nodes: NodeFactory,
  ) {}

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
    return this.nodes.alt(options);
  }

  private concatenation(): Node {
    const items: Node[] = [];
    while (this.pos < this.src.length && this.peek() !== "|" && this.peek() !== ")") items.push(this.quantified(this.atom()));
    return this.nodes.cat(items);
  }

  private quantified(atom: Node): Node {
    let min: number;
    let max: number;
    const c = this.peek();
    if (c === "*") [min, max] = [0, Infinity];
    else if (c === "+") [min, max] = [1, Infinity];
    else if (c === "?") [min, max] = [0, 1];
    else if (c === "{") {
      const braces = /^\{(\d+)(,(\d*))?\}/.exec(this.src.slice(this.pos, this.pos + 24));
      if (!braces) return atom; // a literal "{" (Annex B); the atom step reads it
      min = Number(braces[1]);
      max = braces[2] === undefined ? min : braces[3] === "" ? Infinity : Number(braces[3]);
      if (min > MAX_REPEAT || (max !== Infinity && max > MAX_REPEAT)) throw new PatternError(`repetition count over ${MAX_REPEAT}`);
      this.pos += braces[0].length - 1;
    } else return atom;
    this.pos++;
    if (this.peek() === "?") this.pos++; // lazy: same language, and only whether it matches is asked
    return this.nodes.rep(atom, min, max);
  }

  private atom(): Node {
    const c = this.src[this.pos++]!;
    switch (c) {
      case "(":
        return this.group();
      case "[":
        return this.characterClass();
      case ".":
        return this.nodes.char(this.flags.dotAll ? () => true : (code) => !isLineTerminator(code));
      case "^":
        return this.nodes.assert(this.flags.multiline ? "js-line-start" : "text-start");
      case "$":
        return this.nodes.assert(this.flags.multiline ? "js-line-end" : "text-end");
      case "\\":
        return this.escape();
      case "*":
      case "+":
      case "?":
        throw new PatternError(`nothing to repeat at ${this.pos - 1}`);
      default:
        return this.literal(this.codePointFrom(this.pos - 1));
    }
  }

  /** The character at `at` (a whole code point with `u`), moving past what it takes beyond one code unit. */
  private codePointFrom(at: number): number {
    const code = this.src.charCodeAt(at);
    if (!this.flags.unicode || !isHighSurrogate(code) || !isLowSurrogate(this.src.charCodeAt(at + 1))) return code;
    this.pos++;
    return this.src.codePointAt(at)!;
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
    const start = this.pos - 1;
    const c = this.src[this.pos++];
    if (c === undefined) throw new PatternError("\\ at end of pattern");
    if (c === "b") return this.nodes.assert("word");
    if (c === "B") return this.nodes.assert("not-word");
    if (c in CLASS_ESCAPES) return this.nodes.char(this.flags.ignoreCase ? caseless(CLASS_ESCAPES[c]!, false) : CLASS_ESCAPES[c]!);
    if (this.flags.unicode && (c === "p" || c === "P")) return this.nodes.char(this.property(c, start).pred);
    return this.literal(this.escapedCode(c));
  }

  /** `\p{…}` / `\P{…}` (with `u` only; RegExp has checked the braces). */
  private property(escape: "p" | "P", start: number): { key: string; pred: Pred } {
    const end = this.src.indexOf("}", this.pos);
    if (this.peek() !== "{" || end < 0) throw new PatternError(`bad \\${escape} escape at ${start}`);
    const name = this.src.slice(this.pos + 1, end);
    this.pos = end + 1;
    return { key: this.src.slice(start, this.pos), pred: unicodeProperty(name, escape === "P", escape) };
  }

  /** The character of an escape that stands for one (`\n`, `\x41`, `\u{1F600}`, `\.`); refuses backreferences. */
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
        return this.hexEscape(c, 2);
      case "u": {
        if (this.flags.unicode && this.peek() === "{") {
          const end = this.src.indexOf("}", this.pos);
          const code = parseInt(this.src.slice(this.pos + 1, end), 16);
          this.pos = end + 1;
          return code;
        }
        const code = this.hexEscape(c, 4);
        // With `u`, an escaped surrogate pair is the one character it encodes.
        if (this.flags.unicode && isHighSurrogate(code) && this.peek() === "\\" && this.peek(1) === "u") {
          const low = this.src.slice(this.pos + 2, this.pos + 6);
          if (/^[0-9a-fA-F]{4}$/.test(low) && isLowSurrogate(parseInt(low, 16))) {
            this.pos += 6;
            return (code - 0xd800) * 0x400 + (parseInt(low, 16) - 0xdc00) + 0x10000;
          }
        }
        return code;
      }
      case "k":
        throw new PatternError("backreferences are not supported");
      case "c":
        throw new PatternError("\\c control escapes are not supported");
      default:
        if (c >= "1" && c <= "9") throw new PatternError("backreferences are not supported");
        return this.codePointFrom(this.pos - 1); // identity escape: "\." is ".", "\a" is "a" (Annex B)
    }
  }

  private hexEscape(c: string, digits: number): number {
    const hex = this.src.slice(this.pos, this.pos + digits);
    if (hex.length === digits && /^[0-9a-fA-F]+$/.test(hex)) {
      this.pos += digits;
      return parseInt(hex, 16);
    }
    return c.charCodeAt(0); // Annex B: "\x" without hex digits is "x"
  }

  private characterClass(): Node {
    const negated = this.peek() === "^";
    if (negated) this.pos++;
    const members = new ClassBuilder();
    const put = (atom: ClassAtom) => (typeof atom === "number" ? members.add(atom) : members.set(atom.key, atom.pred));
    while (this.peek() !== "]") {
      if (this.pos >= this.src.length) throw new PatternError("unterminated character class");
      const from = this.classAtom();
      if (this.peek() === "-" && this.peek(1) !== "]" && this.peek(1) !== undefined) {
        this.pos++;
        const to = this.classAtom();
        if (typeof from === "number" && typeof to === "number") {
          if (from > to) throw new PatternError("range out of order in character class");
          members.range(from, to);
          continue;
        }
        // Annex B: "[\w-z]" is \w, "-" and "z"
        for (const part of [from, 45, to]) put(part);
        continue;
      }
      put(from);
    }
    this.pos++;
    const raw = members.build();
    return this.nodes.char(this.flags.ignoreCase ? caseless(raw, negated) : negated ? (c) => !raw(c) : raw);
  }

  /** One member of a class: a character, or a named set (`\d`, `\p{L}`) with the key it is kept once under. */
  private classAtom(): ClassAtom {
    const start = this.pos;
    const c = this.src[this.pos++]!;
    if (c !== "\\") return this.codePointFrom(start);
    const e = this.src[this.pos++];
    if (e === undefined) throw new PatternError("\\ at end of pattern");
    if (e === "b") return 8; // backspace inside a class
    if (e === "-") return 45;
    if (e in CLASS_ESCAPES) return { key: `\\${e}`, pred: CLASS_ESCAPES[e]! };
    if (this.flags.unicode && (e === "p" || e === "P")) return this.property(e, start);
    return this.escapedCode(e);
  }

  private literal(code: number): Node {
    // The plain-string path compares code units: a character it would split (with `u`) runs on the automaton.
    const unit = !this.flags.unicode || (code < 0xd800 || (code > 0xdfff && code <= 0xffff));
    if (!this.flags.ignoreCase) return this.nodes.char((c) => c === code, unit ? literalOf(code, undefined) : undefined);
    const canon = canonical(code);
    return this.nodes.char((c) => canonical(c) === canon, literalOf(canon, canonical));
  }
}

function literalOf(unit: number, fold: Literal["fold"]): Literal {
  return { unit, fold };
}
