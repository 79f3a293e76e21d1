/**
 * One linear-time regular-expression engine, two dialects: RE2's (guardrail content filters) and ECMAScript's (tool
 * search queries, JSON Schema `pattern`), each parsed into the same AST and run on the same matchers (a Pike VM, or
 * Knuth–Morris–Pratt for a plain string). No backtracking, no lookaround, no backreferences: a search costs at most
 * `program.cost` steps per character of text, and a StepBudget stops any search that would take more than its caller
 * allows. Public through the SDK (`core/sdk/index.ts`), so tools and plugins use it as third parties would.
 */
import { parseEcmaScript } from "./ecmascript.ts";
import { compile, type Program } from "./program.ts";
import { parseRe2 } from "./re2.ts";
import type { StepBudget } from "./budget.ts";
import { PatternRun } from "./run.ts";

export { RegexBudgetError, StepBudget } from "./budget.ts";
export type { Program } from "./program.ts";
export { PatternRun, type RunOptions } from "./run.ts";
export type { Span } from "./span.ts";
export { MAX_PATTERN_LENGTH } from "./re2.ts";
export { MAX_REPEAT, PatternError } from "./syntax.ts";

/** The largest program any pattern compiles to, whatever its caller's own cap (a 100k-character string fits). */
export const MAX_PROGRAM = 250_000;

export interface CompileOptions {
  /** Instructions the compiled program may have (default MAX_PROGRAM); more is a PatternError saying so. */
  maxProgram?: number;
}

/** Compiles an RE2 pattern (guardrail dialect); throws PatternError naming what is wrong or refused. */
export function compileRe2(source: string, options: CompileOptions = {}): Program {
  const { root, size } = parseRe2(source, Math.min(options.maxProgram ?? MAX_PROGRAM, MAX_PROGRAM));
  return compile(root, size, false);
}

/** Compiles an ECMAScript pattern with RegExp `flags` (`i`, `m`, `s`, `u`); throws PatternError as compileRe2 does. */
export function compileEcmaScript(source: string, flags = "", options: CompileOptions = {}): Program {
  const { root, size, unicode } = parseEcmaScript(source, flags, Math.min(options.maxProgram ?? MAX_PROGRAM, MAX_PROGRAM));
  return compile(root, size, unicode);
}

/** A RegExp-like matcher: `test` answers as `RegExp.prototype.test` does (without `lastIndex`), in linear time. */
export interface LinearRegExp {
  readonly source: string;
  readonly flags: string;
  readonly program: Program;
  /** Whether the pattern matches somewhere in `text`; its steps count against `budget` when one is given. */
  test(text: string, budget?: StepBudget): boolean;
  toString(): string;
}

/** `new RegExp(source, flags)` for `test`, on this engine (ECMAScript dialect). */
export function linearRegExp(source: string, flags = "", options: CompileOptions = {}): LinearRegExp {
  const program = compileEcmaScript(source, flags, options);
  let run: PatternRun | undefined;
  return {
    source,
    flags,
    program,
    test(text, budget) {
      // One run, reused (its buffers are the size of the program): a test never calls another test.
      run ??= new PatternRun(program, { stopAtMatch: true });
      run.reset(budget);
      run.feed(text);
      run.finish();
      return run.matched;
    },
    toString: () => `/${source}/${flags}`,
  };
}
