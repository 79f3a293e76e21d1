/**
 * Plain strings run on Knuth–Morris–Pratt (core/regex/literal-run.ts) and must report exactly what the automaton
 * reports for the same pattern: the same spans and the same `liveFrom()` after every piece of a streamed text, and
 * the same spans once it ends. The automaton's answer is had from the same string with an empty group appended,
 * which changes nothing it matches but is not a plain string.
 */
import { expect, test } from "bun:test";
import { compileRe2, PatternRun } from "../../../core/regex/index.ts";

/** A small deterministic generator (the same cases on every run). */
function generator(seed: number): () => number {
  let state = seed;
  return () => (state = (state * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
}

/** Everything a caller can observe of a run, piece by piece. */
function observe(pattern: string, text: string, size: number): unknown[] {
  const run = new PatternRun(compileRe2(pattern));
  const seen: unknown[] = [];
  for (let i = 0; i < text.length; i += size) {
    run.feed(text.slice(i, i + size));
    seen.push(run.liveFrom(), JSON.stringify(run.spans));
  }
  run.finish();
  seen.push(run.liveFrom(), JSON.stringify(run.spans));
  return seen;
}

test("plain strings, case-sensitive or not, report what the automaton reports, however the text is cut", () => {
  const random = generator(7);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  let literals = 0;
  for (let i = 0; i < 3_000; i++) {
    let pattern = Array.from({ length: 1 + Math.floor(random() * 6) }, () => pick(["a", "b", "A", "\\.", "é"])).join("");
    if (random() < 0.3) pattern = `(?i)${pattern}`;
    if (random() < 0.2) pattern = `(?:${pattern}){2}`;
    const text = Array.from({ length: Math.floor(random() * 24) }, () => pick(["a", "b", "A", "B", ".", "é", "É"])).join("");
    const size = 1 + Math.floor(random() * 4);
    expect(compileRe2(pattern).kind).toBe("literal");
    expect(compileRe2(`${pattern}(?:)`).kind).toBe("nfa");
    expect({ pattern, text, size, seen: observe(pattern, text, size) }).toEqual({ pattern, text, size, seen: observe(`${pattern}(?:)`, text, size) });
    literals++;
  }
  expect(literals).toBe(3_000);
});

test("overlapping and adjacent occurrences merge; a whole occurrence stays live until the next character is read", () => {
  const run = new PatternRun(compileRe2("abab"));
  run.feed("xabab");
  expect(run.spans).toEqual([]);
  expect(run.liveFrom()).toBe(1);
  run.feed("ab");
  expect(run.spans).toEqual([{ start: 1, end: 5 }]);
  expect(run.liveFrom()).toBe(3);
  run.feed("x");
  expect(run.spans).toEqual([{ start: 1, end: 7 }]);
  expect(run.liveFrom()).toBe(Infinity);
});
