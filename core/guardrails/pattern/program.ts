/**
 * Compiles a parsed pattern into a Thompson-NFA program (bounded repetition unrolled), and finds what it covers in
 * a text in one forward pass of a Pike VM: every position is visited once, with at most one thread per program
 * instruction, so a search costs at most `text length × program size` steps whatever the pattern (no backtracking:
 * `(a+)+b` over a megabyte is as cheap as `ab`). Threads carry the position their match attempt began; when two
 * reach the same instruction the one that began earlier wins, so every position where a match ends knows the
 * EARLIEST start of any match ending there. The union of those `[start, end)` spans is exactly the text any match
 * covers, which is what a guardrail needs (detect, and redact without leaving a fragment), without re-scanning
 * after each match (a leftmost-longest "find all" can be quadratic).
 *
 * The run is resumable: text is fed in pieces (a streamed answer) and `liveFrom()` tells how far back a match in
 * progress may still reach, i.e. how much text must be held back before it is final.
 */
import { isLineBreak, isWordChar, parsePattern, PatternError, type AssertKind, type Node, type Pred } from "./parse.ts";

/** Instructions allowed once repetitions are unrolled (a 100k-character pattern of literals fits). */
export const MAX_PROGRAM = 250_000;

const OP_CHAR = 0;
const OP_SPLIT = 1;
const OP_JMP = 2;
const OP_ASSERT = 3;
const OP_MATCH = 4;

const ASSERTS: readonly AssertKind[] = ["text-start", "text-end", "line-start", "line-end", "word", "not-word"];

/** A compiled pattern: immutable, shared by every run. */
export interface Program {
  readonly size: number;
  readonly op: Uint8Array;
  readonly x: Int32Array;
  readonly y: Int32Array;
  readonly preds: ReadonlyArray<Pred | undefined>;
  /** Whether `c` can begin a match (undefined: any position may, e.g. the pattern can match empty). */
  readonly first: ((c: number) => boolean) | undefined;
}

/** A covered span of text, `[start, end)` in UTF-16 code units. */
export interface Span {
  start: number;
  end: number;
}

export function compilePattern(source: string): Program {
  const ast = parsePattern(source);
  const size = sizeOf(ast) + 1;
  if (size > MAX_PROGRAM) throw new PatternError(`pattern too large once repetitions are expanded (over ${MAX_PROGRAM} instructions)`);
  const b = new Builder(size);
  b.emit(ast);
  b.push(OP_MATCH, 0, 0);
  return { size, op: b.op, x: b.x, y: b.y, preds: b.preds, first: firstSet(b) };
}

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
function firstSet(b: Builder): ((c: number) => boolean) | undefined {
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
  // Cached per code unit: 0 unknown, 1 yes, 2 no.
  const cache = new Uint8Array(65_536);
  return (c) => {
    let v = cache[c]!;
    if (v === 0) v = cache[c] = preds.some((p) => p(c)) ? 1 : 2;
    return v === 1;
  };
}

/**
 * One search over a text fed in pieces. `feed` appends, `finish` says no more text comes; `spans` are the merged
 * covered spans found so far (absolute offsets); `liveFrom()` is where the earliest match still in progress began.
 */
export class PatternRun {
  /** Merged spans, in order; the last may still grow while a match in progress reaches back into it. */
  readonly spans: Span[] = [];
  private readonly mark: Int32Array;
  private generation = 1;
  /** Threads waiting at `pos` (instruction, start), ordered by start: closed once the character at `pos` is known. */
  private seedPc: Int32Array;
  private seedStart: Int32Array;
  private seeds = 0;
  private nextPc: Int32Array;
  private nextStart: Int32Array;
  private readonly stackPc: Int32Array;
  /** Threads after closure at the current position: the character instructions. */
  private runPc: Int32Array;
  private runStart: Int32Array;
  private pos = 0;
  /** The code unit before `pos` (NaN at the text start), for `\b` and line starts. */
  private prev = Number.NaN;
  private finished = false;

  constructor(private readonly program: Program) {
    const n = program.size;
    this.mark = new Int32Array(n);
    this.seedPc = new Int32Array(n);
    this.seedStart = new Int32Array(n);
    this.nextPc = new Int32Array(n);
    this.nextStart = new Int32Array(n);
    this.runPc = new Int32Array(n);
    this.runStart = new Int32Array(n);
    this.stackPc = new Int32Array(2 * n + 2);
  }

  /** Text covered so far, from one whole string. */
  static spansOf(program: Program, text: string): Span[] {
    const run = new PatternRun(program);
    run.feed(text);
    run.finish();
    return run.spans;
  }

  /** Where the earliest match attempt still alive began (`Infinity` when none is). */
  liveFrom(): number {
    return this.seeds > 0 ? this.seedStart[0]! : Infinity;
  }

  feed(text: string): void {
    if (this.finished) throw new Error("PatternRun: fed after finish");
    const first = this.program.first;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      // Nothing in progress and this character cannot begin a match: skip it without touching the VM.
      if (this.seeds === 0 && first !== undefined && !first(c)) {
        this.prev = c;
        this.pos++;
        continue;
      }
      this.step(c);
    }
  }

  finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.close(Number.NaN);
    this.seeds = 0;
  }

  /** Closes the waiting threads (and a new attempt) at `pos` knowing the character there, then reads it. */
  private step(c: number): void {
    const count = this.close(c);
    const { op, preds } = this.program;
    const next = this.pos + 1;
    this.seeds = 0;
    const nextPc = this.nextPc;
    const nextStart = this.nextStart;
    // No need to dedupe here: closing at the next position does (first claim = earliest start).
    for (let t = 0; t < count; t++) {
      const pc = this.runPc[t]!;
      if (op[pc] === OP_CHAR && preds[pc]!(c)) {
        nextPc[this.seeds] = pc + 1;
        nextStart[this.seeds] = this.runStart[t]!;
        this.seeds++;
      }
    }
    // Swap the seed buffers.
    [this.seedPc, this.nextPc] = [this.nextPc, this.seedPc];
    [this.seedStart, this.nextStart] = [this.nextStart, this.seedStart];
    this.prev = c;
    this.pos = next;
  }

  /**
   * Epsilon closure of the seeds plus a new attempt starting at `pos`, with `after` the character at `pos` (NaN at
   * the end). Records a match ending here; returns how many character threads remain (in `runPc` / `runStart`).
   */
  private close(after: number): number {
    const gen = ++this.generation;
    const { op, x, y } = this.program;
    const mark = this.mark;
    const stack = this.stackPc;
    let count = 0;
    let matchStart = -1;
    const total = this.seeds + 1;
    for (let s = 0; s < total; s++) {
      const seedPc = s < this.seeds ? this.seedPc[s]! : 0;
      const start = s < this.seeds ? this.seedStart[s]! : this.pos;
      let top = 0;
      stack[top++] = seedPc;
      while (top > 0) {
        const pc = stack[--top]!;
        if (mark[pc] === gen) continue;
        mark[pc] = gen;
        switch (op[pc]) {
          case OP_CHAR:
            this.runPc[count] = pc;
            this.runStart[count] = start;
            count++;
            break;
          case OP_JMP:
            stack[top++] = x[pc]!;
            break;
          case OP_SPLIT:
            stack[top++] = y[pc]!;
            stack[top++] = x[pc]!;
            break;
          case OP_ASSERT:
            if (this.holds(x[pc]!, after)) stack[top++] = pc + 1;
            break;
          case OP_MATCH:
            if (matchStart < 0) matchStart = start;
            break;
        }
      }
    }
    // Empty matches cover nothing.
    if (matchStart >= 0 && matchStart < this.pos) this.addSpan(matchStart, this.pos);
    return count;
  }

  private holds(kind: number, after: number): boolean {
    const before = this.prev;
    switch (ASSERTS[kind]) {
      case "text-start":
        return this.pos === 0;
      case "text-end":
        return Number.isNaN(after);
      case "line-start":
        return this.pos === 0 || isLineBreak(before);
      case "line-end":
        return Number.isNaN(after) || isLineBreak(after);
      case "word":
      case "not-word": {
        const boundary = (!Number.isNaN(before) && isWordChar(before)) !== (!Number.isNaN(after) && isWordChar(after));
        return ASSERTS[kind] === "word" ? boundary : !boundary;
      }
      default:
        return false;
    }
  }

  /** Unions `[start, end)` into the spans (ends only grow; a start may reach back over earlier spans). */
  private addSpan(start: number, end: number): void {
    const spans = this.spans;
    while (spans.length > 0 && spans[spans.length - 1]!.end >= start) {
      const last = spans.pop()!;
      if (last.start < start) start = last.start;
      if (last.end > end) end = last.end;
    }
    spans.push({ start, end });
  }
}
