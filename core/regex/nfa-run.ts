/**
 * The Pike VM over an automaton program: one forward pass, every position visited once, with at most one thread per
 * program instruction, so a search costs at most `text length × program size` steps whatever the pattern (no
 * backtracking: `(a+)+b` over a megabyte is as cheap as `ab`). Threads carry the position their match attempt began;
 * when two reach the same instruction the one that began earlier wins, so every position where a match ends knows
 * the EARLIEST start of any match ending there. The union of those `[start, end)` spans is exactly the text any match
 * covers (detect, and redact without leaving a fragment), found without re-scanning after each match (a
 * leftmost-longest "find all" can be quadratic).
 *
 * The run is resumable: text is fed in pieces (a streamed answer) and `liveFrom()` tells how far back a match in
 * progress may still reach, i.e. how much text must be held back before it is final.
 */
import { RegexBudgetError, type StepBudget } from "./budget.ts";
import { ASSERTS, OP_ASSERT, OP_CHAR, OP_JMP, OP_MATCH, OP_SPLIT, type NfaProgram } from "./program.ts";
import { addSpan, type Span } from "./span.ts";
import { isHighSurrogate, isLineBreak, isLineTerminator, isLowSurrogate, isWordChar } from "./syntax.ts";

export class NfaRun {
  /** Merged spans, in order; the last may still grow while a match in progress reaches back into it. */
  readonly spans: Span[] = [];
  /** Whether any match (an empty one too) has been seen. */
  matched = false;
  /** Steps taken so far. */
  steps = 0;
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
  private readonly runPc: Int32Array;
  private readonly runStart: Int32Array;
  /** How many of them the last `close` left. */
  private closed = 0;
  private pos = 0;
  /** The character before `pos` (NaN at the text start), for `\b` and line starts. */
  private prev = Number.NaN;
  /** A high surrogate that ended the last piece of a text read by code point, read with the next piece. */
  private carry = "";
  private finished = false;

  constructor(
    private readonly program: NfaProgram,
    private budget: StepBudget | undefined,
    private readonly stopAtMatch: boolean,
  ) {
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

  /** Ready for a new text, keeping its buffers. */
  reset(budget: StepBudget | undefined): void {
    this.budget = budget;
    this.spans.length = 0;
    this.matched = false;
    this.steps = 0;
    this.seeds = 0;
    this.pos = 0;
    this.prev = Number.NaN;
    this.carry = "";
    this.finished = false;
  }

  /** Where the earliest match attempt still alive began (`Infinity` when none is). */
  liveFrom(): number {
    return this.seeds > 0 ? this.seedStart[0]! : Infinity;
  }

  feed(piece: string): void {
    if (this.finished) throw new Error("PatternRun: fed after finish");
    if (this.stopAtMatch && this.matched) return;
    const { first, unicode } = this.program;
    const text = this.carry + piece;
    this.carry = "";
    const allowance = this.budget ? this.budget.limit - this.budget.used : Infinity;
    let steps = 0;
    try {
      for (let i = 0; i < text.length; i++) {
        // Nothing in progress: skip, without touching the VM, the characters that cannot begin a match.
        if (this.seeds === 0 && first !== undefined) {
          const from = i;
          for (; i < text.length; i++) {
            const u = text.charCodeAt(i);
            if (unicode && isHighSurrogate(u)) break; // read as a code point below
            let known = first.known[u]!;
            if (known === 0) {
              steps += first.preds.length;
              known = first.known[u] = first.preds.some((p) => p(u)) ? 1 : 2;
            }
            if (known === 1) break;
          }
          if (i > from) {
            steps += i - from;
            this.pos += i - from;
            this.prev = text.charCodeAt(i - 1);
            if (steps > allowance) throw new RegexBudgetError(this.budget!.limit);
            if (i === text.length) break;
          }
        }
        let c = text.charCodeAt(i);
        let width = 1;
        if (unicode && isHighSurrogate(c)) {
          if (i + 1 === text.length) {
            this.carry = text.slice(i);
            break;
          }
          const low = text.charCodeAt(i + 1);
          if (isLowSurrogate(low)) {
            c = (c - 0xd800) * 0x400 + (low - 0xdc00) + 0x10000;
            width = 2;
            i++;
          }
        }
        steps += this.step(c, width);
        if (steps > allowance) throw new RegexBudgetError(this.budget!.limit);
        if (this.stopAtMatch && this.matched) return;
      }
    } finally {
      this.steps += steps;
      if (this.budget) this.budget.used += steps;
    }
  }

  finish(): void {
    if (this.finished) return;
    this.finished = true;
    if (this.stopAtMatch && this.matched) return;
    if (this.carry !== "") {
      // A lone high surrogate ends the text: it is a character of its own.
      const c = this.carry.charCodeAt(0);
      this.carry = "";
      this.spend(this.step(c, 1));
    }
    this.spend(this.close(Number.NaN));
    this.seeds = 0;
  }

  private spend(steps: number): void {
    this.steps += steps;
    if (!this.budget) return;
    this.budget.used += steps;
    if (this.budget.used > this.budget.limit) throw new RegexBudgetError(this.budget.limit);
  }

  /** Closes the waiting threads (and a new attempt) at `pos` knowing the character there, then reads it. */
  private step(c: number, width: number): number {
    const steps = this.close(c);
    const count = this.closed;
    const { op, preds } = this.program;
    const { runPc, runStart, nextPc, nextStart } = this;
    let seeds = 0;
    // No need to dedupe here: closing at the next position does (first claim = earliest start).
    for (let t = 0; t < count; t++) {
      const pc = runPc[t]!;
      if (op[pc] === OP_CHAR && preds[pc]!(c)) {
        nextPc[seeds] = pc + 1;
        nextStart[seeds] = runStart[t]!;
        seeds++;
      }
    }
    this.seeds = seeds;
    // Swap the seed buffers.
    this.nextPc = this.seedPc;
    this.seedPc = nextPc;
    this.nextStart = this.seedStart;
    this.seedStart = nextStart;
    this.prev = c;
    this.pos += width;
    return steps;
  }

  /**
   * Epsilon closure of the seeds plus a new attempt starting at `pos`, with `after` the character at `pos` (NaN at
   * the end). Records a match ending here; leaves the character threads in `runPc` / `runStart`; returns its steps
   * (the instructions it visited).
   */
  private close(after: number): number {
    const gen = ++this.generation;
    const { op, x, y } = this.program;
    const { mark, runPc, runStart, seedPc, seedStart } = this;
    const stack = this.stackPc;
    const seeds = this.seeds;
    let count = 0;
    let visited = 0;
    let matchStart = -1;
    for (let s = 0; s <= seeds; s++) {
      const start = s < seeds ? seedStart[s]! : this.pos;
      let top = 0;
      stack[top++] = s < seeds ? seedPc[s]! : 0;
      while (top > 0) {
        const pc = stack[--top]!;
        if (mark[pc] === gen) continue;
        mark[pc] = gen;
        visited++;
        switch (op[pc]) {
          case OP_CHAR:
            runPc[count] = pc;
            runStart[count] = start;
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
    this.closed = count;
    if (matchStart >= 0) {
      this.matched = true;
      // Empty matches cover nothing.
      if (matchStart < this.pos) addSpan(this.spans, matchStart, this.pos);
    }
    return visited;
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
      case "js-line-start":
        return this.pos === 0 || isLineTerminator(before);
      case "js-line-end":
        return Number.isNaN(after) || isLineTerminator(after);
      case "word":
      case "not-word": {
        const boundary = (!Number.isNaN(before) && isWordChar(before)) !== (!Number.isNaN(after) && isWordChar(after));
        return ASSERTS[kind] === "word" ? boundary : !boundary;
      }
      default:
        return false;
    }
  }
}
