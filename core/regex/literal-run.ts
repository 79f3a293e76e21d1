/**
 * A plain-string pattern (program.ts `LiteralProgram`) found with Knuth–Morris–Pratt: one comparison per character
 * plus failure links, which never outnumber the characters read, so a search costs at most two steps per character
 * however long the string (the automaton would keep one thread per prefix of `aaaa…` alive over a text of `a`s).
 * It reports exactly what the automaton reports, when it does: the merged spans of every occurrence, each recorded
 * once the character after it is read (or the text ends), and `liveFrom()` as the start of the longest prefix still
 * matched, a whole occurrence included until it is recorded.
 */
import { RegexBudgetError, type StepBudget } from "./budget.ts";
import type { LiteralProgram } from "./program.ts";
import { addSpan, type Span } from "./span.ts";

export class LiteralRun {
  readonly spans: Span[] = [];
  matched = false;
  steps = 0;
  /** Length of the longest prefix of the string that ends at `pos`. */
  private k = 0;
  private pos = 0;
  private finished = false;

  constructor(
    private readonly program: LiteralProgram,
    private budget: StepBudget | undefined,
    private readonly stopAtMatch: boolean,
  ) {}

  reset(budget: StepBudget | undefined): void {
    this.budget = budget;
    this.spans.length = 0;
    this.matched = false;
    this.steps = 0;
    this.k = 0;
    this.pos = 0;
    this.finished = false;
  }

  liveFrom(): number {
    return this.k > 0 ? this.pos - this.k : Infinity;
  }

  feed(text: string): void {
    if (this.finished) throw new Error("PatternRun: fed after finish");
    if (this.stopAtMatch && this.matched) return;
    const { units, fold, fail } = this.program;
    const n = units.length;
    const allowance = this.budget ? this.budget.limit - this.budget.used : Infinity;
    let steps = 0;
    let k = this.k;
    try {
      for (let i = 0; i < text.length; i++) {
        const c = fold ? fold(text.charCodeAt(i)) : text.charCodeAt(i);
        if (k === n) {
          this.record();
          k = fail[n - 1]!;
        }
        while (k > 0 && units[k] !== c) {
          k = fail[k - 1]!;
          steps++;
        }
        if (units[k] === c) k++;
        steps++;
        this.pos++;
        if (k === n && this.stopAtMatch) {
          this.record();
          return;
        }
        if (steps > allowance) throw new RegexBudgetError(this.budget!.limit);
      }
    } finally {
      this.k = k;
      this.steps += steps;
      if (this.budget) this.budget.used += steps;
    }
  }

  finish(): void {
    if (this.finished) return;
    this.finished = true;
    if (this.k === this.program.units.length) this.record();
    this.k = 0;
  }

  /** The occurrence that ends at `pos`. */
  private record(): void {
    addSpan(this.spans, this.pos - this.program.units.length, this.pos);
    this.matched = true;
  }
}
