/**
 * A parsed pattern compiled for one of two matchers: a plain string (every node a literal character under one case
 * fold) runs as a Knuth–Morris–Pratt automaton (literal-run.ts: at most two steps per character of text, however
 * long the string); anything else becomes a Thompson-NFA program (bounded repetition unrolled) for the Pike VM
 * (nfa-run.ts: at most one step per instruction per character). `cost` is that bound: the most steps one character
 * of text can take, which is what a caller multiplies by a text's length to know the worst case before running.
 */
import type { AssertKind, Literal, Node, Pred } from "./syntax.ts";

export const OP_CHAR = 0;
export const OP_SPLIT = 1;
export const OP_JMP = 2;
export const OP_ASSERT = 3;
export const OP_MATCH = 4;

export const ASSERTS: readonly AssertKind[] = ["text-start", "text-end", "line-start", "line-end", "js-line-start", "js-line-end", "word", "not-word"];

export interface NfaProgram {
  readonly kind: "nfa";
  /** Instructions, the final `match` included. */
  readonly size: number;
  /** Steps per character of text at most: `size`. */
  readonly cost: number;
  readonly op: Uint8Array;
  readonly x: Int32Array;
  readonly y: Int32Array;
  readonly preds: ReadonlyArray<Pred | undefined>;
  /** What can begin a match (undefined: any position may, e.g. the pattern can match empty). */
  readonly first: FirstSet | undefined;
  /** Text is read by code point (ECMAScript `u`), not by UTF-16 code unit. */
  readonly unicode: boolean;
}

export interface LiteralProgram {
  readonly kind: "literal";
  /** The string's code units as `fold` maps them. */
  readonly units: Int32Array;
  readonly fold: ((c: number) => number) | undefined;
  /** KMP failure links: `fail[k]` is the longest proper border of `units[0..k]`. */
  readonly fail: Int32Array;
  readonly size: number;
  /** Steps per character of text at most, amortised: a comparison and a failure link. */
  readonly cost: 2;
}

export type Program = NfaProgram | LiteralProgram;

/**
 * The instructions a match can begin with, and per code unit whether one accepts it (0 not known yet, 1 yes, 2 no):
 * filled as characters are met, each new one costing a test per predicate (the run counts those steps).
 */
export interface FirstSet {
  readonly preds: readonly Pred[];
  readonly known: Uint8Array;
}

/** Compiles a parsed pattern of `size` instructions (sizes come from the parser, which has refused bigger ones). */
export function compile(root: Node, size: number, unicode: boolean): Program {
  return literalProgram(root) ?? nfaProgram(root, size, unicode);
}

// ---------------------------------------------------------------- plain strings

function literalProgram(root: Node): LiteralProgram | undefined {
  const chars: Literal[] = [];
  if (!collectLiterals(root, chars) || chars.length === 0) return undefined;
  const fold = chars[0]!.fold;
  if (chars.some((c) => c.fold !== fold)) return undefined;
  const units = Int32Array.from(chars, (c) => c.unit);
  const fail = new Int32Array(units.length);
  for (let i = 1, k = 0; i < units.length; i++) {
    while (k > 0 && units[i] !== units[k]) k = fail[k - 1]!;
    if (units[i] === units[k]) k++;
    fail[i] = k;
  }
  return { kind: "literal", units, fold, fail, size: units.length + 1, cost: 2 };
}

function collectLiterals(node: Node, out: Literal[]): boolean {
  if (node.t === "char") {
    if (!node.literal) return false;
    out.push(node.literal);
    return true;
  }
  if (node.t === "cat") return node.items.every((item) => collectLiterals(item, out));
  if (node.t === "rep" && node.min === node.max) {
    // `(?:ab){3}` is `ababab` (as long as the program the parser allowed).
    for (let i = 0; i < node.min; i++) if (!collectLiterals(node.node, out)) return false;
    return true;
  }
  return false;
}

// ---------------------------------------------------------------- automata

function nfaProgram(root: Node, size: number, unicode: boolean): NfaProgram {
  const b = new Builder(size);
  b.emit(root);
  b.push(OP_MATCH, 0, 0);
  return { kind: "nfa", size, cost: size, op: b.op, x: b.x, y: b.y, preds: b.preds, first: firstSet(b), unicode };
}

class Builder {
  readonly op: Uint8Array;
  readonly x: Int32Array;
  readonly y: Int32Array;
  readonly preds: Array<Pred | undefined>;
  length = 0;

  constructor(size: number) {
    this.op = new Uint8Array(size);
    this.x = new Int32Array(size);
    this.y = new Int32Array(size);
    this.preds = new Array<Pred | undefined>(size);
  }

  push(op: number, x: number, y: number, pred?: Pred): number {
    const pc = this.length++;
    this.op[pc] = op;
    this.x[pc] = x;
    this.y[pc] = y;
    this.preds[pc] = pred;
    return pc;
  }

  emit(node: Node): void {
    switch (node.t) {
      case "empty":
        return;
      case "char":
        this.push(OP_CHAR, 0, 0, node.pred);
        return;
      case "assert":
        this.push(OP_ASSERT, ASSERTS.indexOf(node.kind), 0);
        return;
      case "cat":
        for (const item of node.items) this.emit(item);
        return;
      case "alt": {
        const jumps: number[] = [];
        node.options.forEach((option, i) => {
          if (i === node.options.length - 1) return this.emit(option);
          const split = this.push(OP_SPLIT, this.length + 1, 0);
          this.emit(option);
          jumps.push(this.push(OP_JMP, 0, 0));
          this.y[split] = this.length;
        });
        for (const jump of jumps) this.x[jump] = this.length;
        return;
      }
      case "rep": {
        for (let i = 0; i < node.min; i++) this.emit(node.node);
        if (node.max === Infinity) {
          const split = this.push(OP_SPLIT, this.length + 1, 0);
          this.emit(node.node);
          this.push(OP_JMP, split, 0);
          this.y[split] = this.length;
          return;
        }
        const splits: number[] = [];
        for (let i = node.min; i < node.max; i++) {
          splits.push(this.push(OP_SPLIT, this.length + 1, 0));
          this.emit(node.node);
        }
        for (const split of splits) this.y[split] = this.length;
      }
    }
  }
}

/**
 * The characters a match can begin with: the character instructions reachable from the start without reading
 * (assertions assumed to hold, so this is a superset). Undefined when the start reaches `match` (an empty match).
 */
function firstSet(b: Builder): FirstSet | undefined {
  const preds: Pred[] = [];
  const seen = new Uint8Array(b.length);
  const stack = [0];
  while (stack.length > 0) {
    const pc = stack.pop()!;
    if (seen[pc]) continue;
    seen[pc] = 1;
    switch (b.op[pc]) {
      case OP_MATCH:
        return undefined;
      case OP_CHAR:
        preds.push(b.preds[pc]!);
        break;
      case OP_JMP:
        stack.push(b.x[pc]!);
        break;
      case OP_SPLIT:
        stack.push(b.y[pc]!, b.x[pc]!);
        break;
      case OP_ASSERT:
        stack.push(pc + 1);
        break;
    }
  }
  return { preds, known: new Uint8Array(65_536) };
}
