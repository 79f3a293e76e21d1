/**
 * What a search costs on the regex engine (core/regex), counted in steps, never in time: at most `program.cost`
 * steps per character of text (an automaton's instructions; a plain string's two), a StepBudget shared by several
 * runs that stops the one going past it, and programs too large refused while the pattern is read.
 */
import { describe, expect, test } from "bun:test";
import { compileEcmaScript, compileRe2, MAX_PROGRAM, PatternError, PatternRun, RegexBudgetError, StepBudget, type Program } from "../../../core/regex/index.ts";

/** Steps a whole-text search of `program` takes over `text`. */
function stepsOf(program: Program, text: string): number {
  const budget = new StepBudget(Number.MAX_SAFE_INTEGER);
  PatternRun.spansOf(program, text, { budget });
  return budget.used;
}

describe("steps per character", () => {
  test("an automaton takes at most its program's size per character, whatever the text", () => {
    for (const [pattern, text] of [
      ["(?:(?:.?){100}){3}Z", "x".repeat(5_000)],
      ["(a+)+b", "a".repeat(5_000)],
      ["(?i)(?:ab|ac|ad){1,50}Z", "AbAcAd".repeat(1_000)],
      ["[a-y0-9_,;:]{1,200}Z", "ab,9;".repeat(1_000)],
      ["\\bcat\\b", "concatenate the cat ".repeat(300)],
    ] as const) {
      const program = compileRe2(pattern);
      expect(program.kind).toBe("nfa");
      expect(program.cost).toBe(program.size);
      const steps = stepsOf(program, text);
      expect(steps).toBeGreaterThan(0);
      expect(steps).toBeLessThanOrEqual(program.cost * (text.length + 1));
    }
  });

  test("the hostile pattern is as costly as its size says: all of it runs at every character", () => {
    const program = compileRe2("(?:(?:.?){1000}){120}Z");
    expect(program.cost).toBe(240_002);
    // Not run to the end: a budget of ten characters' worst case stops it within the eleventh.
    const budget = new StepBudget(10 * program.cost);
    expect(() => PatternRun.spansOf(program, "x".repeat(20_000), { budget })).toThrow(RegexBudgetError);
    expect(budget.used).toBeGreaterThan(budget.limit);
    expect(budget.used).toBeLessThanOrEqual(budget.limit + program.cost);
  });

  test("a plain string of any length takes at most two steps per character (the automaton would keep a thread per prefix)", () => {
    const program = compileRe2("a".repeat(100_000));
    expect(program.kind).toBe("literal");
    expect(program.cost).toBe(2);
    const text = "a".repeat(1_000_000);
    expect(stepsOf(program, text)).toBeLessThanOrEqual(2 * text.length);
    expect(PatternRun.spansOf(program, text)).toEqual([{ start: 0, end: 1_000_000 }]);
    for (const [pattern, text] of [["abcabd", "abcabcabdabcabd".repeat(500)], ["(?i)Project-Phoenix", "PROJECT-PHOENIX project-phoenix ".repeat(500)]] as const) {
      const literal = compileRe2(pattern);
      expect(literal.kind).toBe("literal");
      expect(stepsOf(literal, text)).toBeLessThanOrEqual(2 * text.length);
    }
  });

  test("characters that cannot begin a match are skipped at one step each", () => {
    const program = compileRe2("Z[0-9]+");
    const text = "the quick brown fox ".repeat(1_000);
    expect(stepsOf(program, text)).toBeLessThanOrEqual(text.length + 256);
  });
});

describe("budgets", () => {
  test("one budget is shared by every run given it; the run that goes past it stops with RegexBudgetError", () => {
    const budget = new StepBudget(1_000_000);
    const programs = [compileRe2("(?:.?){20}Q"), compileRe2("(?:.?){20}R")];
    let runs = 0;
    expect(() => {
      for (;;) {
        for (const program of programs) PatternRun.spansOf(program, "x".repeat(10_000), { budget });
        runs++;
      }
    }).toThrow(RegexBudgetError);
    expect(runs).toBeGreaterThan(0);
    expect(budget.used).toBeGreaterThan(1_000_000);
    expect(budget.used).toBeLessThanOrEqual(1_000_000 + programs[0]!.cost);
  });

  test("a run fed in pieces counts each piece; the error names the budget", () => {
    const budget = new StepBudget(5_000);
    const run = new PatternRun(compileRe2("(?:.?){10}Q"), { budget });
    run.feed("x".repeat(100));
    expect(run.steps).toBe(budget.used);
    let error: unknown;
    try {
      for (let i = 0; i < 100; i++) run.feed("x".repeat(100));
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(RegexBudgetError);
    expect((error as RegexBudgetError).limit).toBe(5_000);
    expect((error as Error).message).toBe("search exceeded its step budget of 5000 steps");
  });
});

describe("program size is bounded while the pattern is read", () => {
  test("nested counted repetitions are refused as soon as their product passes the cap: the rest is never read", () => {
    // The syntax error at the end is never reached: the refusal comes from the repetition before it.
    for (const pattern of ["((a{1000}){1000}){1000}(", "(?:(?:(?:(?:(?:(?:(?:(?:(?:(?:a{2}){2}){2}){2}){2}){2}){2}){2}){2}){1000}){1000}("]) {
      expect(() => compileRe2(pattern)).toThrow(PatternError);
      expect(() => compileRe2(pattern)).toThrow(`pattern too complex (more than ${MAX_PROGRAM} instructions once repetitions are expanded)`);
    }
    expect(() => compileEcmaScript("(?:a{1000}){3}", "", { maxProgram: 2_000 })).toThrow("more than 2000 instructions");
  });

  test("a caller's cap below the engine's is the one applied; sizes are those of the unrolled program", () => {
    expect(compileRe2("(?:ab){10}c").kind).toBe("literal");
    const program = compileRe2("(?:a|b){10}c");
    expect(program.kind === "nfa" && program.size).toBe(10 * (1 + 1 + 2 + 2) + 1 + 1);
    expect(() => compileRe2("(?:a|b){10}c", { maxProgram: 61 })).toThrow("more than 61 instructions");
    expect(compileRe2("(?:a|b){10}c", { maxProgram: 62 }).cost).toBe(62);
  });
});
