/**
 * The RE2 dialect of the regex engine (core/regex/re2.ts: guardrail patterns): RE2 syntax without lookaround or
 * backreferences, matched in linear time, reporting the text any match covers (merged spans), resumable over
 * streamed text.
 */
import { describe, expect, test } from "bun:test";
import { compileRe2 as compilePattern, MAX_PATTERN_LENGTH, PatternError, PatternRun, type Span } from "../../../core/regex/index.ts";

const spans = (pattern: string, text: string): Array<[number, number]> => PatternRun.spansOf(compilePattern(pattern), text).map((s) => [s.start, s.end]);
const covered = (pattern: string, text: string) => spans(pattern, text).map(([a, b]) => text.slice(a, b));

describe("pattern dialect", () => {
  test("literals, classes, repetition, alternation, anchors and word boundaries", () => {
    expect(covered("secret-\\d+", "a secret-123 and secret-4")).toEqual(["secret-123", "secret-4"]);
    expect(covered("[A-Z]{3}-[0-9]{2,3}", "ABC-12 ABCD-1234 XYZ-999")).toEqual(["ABC-12", "BCD-123", "XYZ-999"]);
    expect(covered("\\bcat\\b", "cat concat cat.")).toEqual(["cat", "cat"]);
    expect(covered("^abc", "abc abc")).toEqual(["abc"]);
    expect(covered("(?m)^abc$", "abc\nabc\nabcd")).toEqual(["abc", "abc"]);
    expect(covered("colou?r|gr[ae]y", "color colour grey gray")).toEqual(["color", "colour", "grey", "gray"]);
    expect(covered("a.c", "abc a\nc")).toEqual(["abc"]);
    expect(covered("(?s)a.c", "a\nc")).toEqual(["a\nc"]);
    expect(covered("[[:digit:]]+", "ab 42")).toEqual(["42"]);
    expect(covered("\\p{Lu}\\p{Ll}+", "hello World")).toEqual(["World"]);
    expect(covered("(?P<year>\\d{4})-(?:\\d{2})", "on 2024-05")).toEqual(["2024-05"]);
  });

  test("case-sensitive by default, (?i) for the rest of its group or (?i:…) scoped", () => {
    expect(covered("phoenix", "Phoenix phoenix")).toEqual(["phoenix"]);
    expect(covered("(?i)phoenix", "Phoenix PHOENIX")).toEqual(["Phoenix", "PHOENIX"]);
    expect(covered("project-(?i:phoenix)-X", "project-PHOENIX-X project-phoenix-x")).toEqual(["project-PHOENIX-X"]);
    expect(covered("(?i)[a-c]+", "ABCd")).toEqual(["ABC"]);
  });

  test("overlapping and adjacent matches are covered as one span; the earliest start wins", () => {
    expect(spans("ab|bc", "abc")).toEqual([[0, 3]]);
    expect(spans("b|ab+c", "abbc")).toEqual([[0, 4]]);
    expect(spans("a+", "aaa baa")).toEqual([[0, 3], [5, 7]]);
    expect(spans("x*", "abc")).toEqual([]); // empty matches cover nothing
  });

  test("lookaround, backreferences and other refused syntax are PatternErrors naming the problem", () => {
    for (const [pattern, message] of [
      ["(?=a)b", "lookaround"],
      ["(?<!a)b", "lookaround"],
      ["(a)\\1", "backreferences"],
      ["(?<n>a)\\k<n>", "backreferences"],
      ["a**", "repetition"],
      ["a{2000}", "over 1000"],
      ["[z-a]", "out of order"],
      ["(abc", "missing \")\""],
      ["abc)", "unmatched"],
      ["\\q", "invalid escape"],
      ["a++", "possessive"],
      ["\\p{Nope}", "Unicode class"],
    ] as const) {
      expect(() => compilePattern(pattern)).toThrow(PatternError);
      expect(() => compilePattern(pattern)).toThrow(message);
    }
    expect(() => compilePattern("a".repeat(MAX_PATTERN_LENGTH + 1))).toThrow(`longer than ${MAX_PATTERN_LENGTH}`);
    expect(() => compilePattern("a".repeat(MAX_PATTERN_LENGTH))).not.toThrow();
  });

  test("runs in linear time on patterns that make a backtracking engine explode", () => {
    const text = "a".repeat(50_000) + "!";
    for (const pattern of ["(a+)+b", "(a|aa)+b", "(a*)*b", ".*.*.*b", "(x+x+)+y"]) {
      const started = performance.now();
      expect(spans(pattern, text)).toEqual([]);
      expect(performance.now() - started).toBeLessThan(1_000);
    }
  });

  test("a run fed in pieces finds what a whole-text run finds, and says how far back a match may still reach", () => {
    const program = compilePattern("secret-\\d+");
    const text = "one secret-12345 two secret-9 end";
    const whole = PatternRun.spansOf(program, text);
    for (const size of [1, 2, 3, 7]) {
      const run = new PatternRun(program);
      for (let i = 0; i < text.length; i += size) run.feed(text.slice(i, i + size));
      run.finish();
      expect(run.spans).toEqual(whole as Span[]);
    }
    const run = new PatternRun(program);
    run.feed("hello secr");
    expect(run.liveFrom()).toBe(6);
    run.feed("et-42");
    expect(run.liveFrom()).toBe(6); // `\d+` may still grow
    run.feed(" done");
    expect(run.liveFrom()).toBe(Infinity);
    expect(run.spans).toEqual([{ start: 6, end: 15 }]);
  });
});
