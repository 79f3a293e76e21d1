/**
 * One search of a compiled pattern over a text fed in pieces, on whichever matcher its program was compiled for:
 * `feed` appends, `finish` says no more text comes; `spans` are the merged covered spans found so far (absolute
 * offsets, UTF-16 code units); `liveFrom()` is where the earliest match still in progress began. With a budget, every
 * step counts against it and the run stops with RegexBudgetError past it.
 */
import type { StepBudget } from "./budget.ts";
import { LiteralRun } from "./literal-run.ts";
import { NfaRun } from "./nfa-run.ts";
import type { Program } from "./program.ts";
import type { Span } from "./span.ts";

export interface RunOptions {
  /** Steps allowed, shared with whatever else spends from it. */
  budget?: StepBudget;
  /** Stop reading at the first match (an empty one too): for "does it match", not "what does it cover". */
  stopAtMatch?: boolean;
}

export class PatternRun {
  private readonly run: NfaRun | LiteralRun;

  constructor(program: Program, options: RunOptions = {}) {
    const stop = options.stopAtMatch ?? false;
    this.run = program.kind === "literal" ? new LiteralRun(program, options.budget, stop) : new NfaRun(program, options.budget, stop);
  }

  /** Text covered so far, from one whole string. */
  static spansOf(program: Program, text: string, options: RunOptions = {}): Span[] {
    const run = new PatternRun(program, options);
    run.feed(text);
    run.finish();
    return run.spans;
  }

  /** Merged spans, in order; the last may still grow while a match in progress reaches back into it. */
  get spans(): Span[] {
    return this.run.spans;
  }

  /** Whether a match (an empty one too) has been seen. */
  get matched(): boolean {
    return this.run.matched;
  }

  /** Steps this run has taken. */
  get steps(): number {
    return this.run.steps;
  }

  /** Where the earliest match attempt still alive began (`Infinity` when none is). */
  liveFrom(): number {
    return this.run.liveFrom();
  }

  feed(text: string): void {
    this.run.feed(text);
  }

  finish(): void {
    this.run.finish();
  }

  /** Ready for another text, keeping its buffers; `budget` replaces the one it had. */
  reset(budget?: StepBudget): void {
    this.run.reset(budget);
  }
}
