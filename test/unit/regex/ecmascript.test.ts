/**
 * The ECMAScript dialect of the regex engine (core/regex/ecmascript.ts), as service:tool_search runs it: JavaScript
 * semantics with the i and m flags, refusals, bounds; then the `u` flag JSON Schema patterns are given with.
 */
import { describe, expect, test } from "bun:test";
import { linearRegExp, PatternError, RegexBudgetError, StepBudget } from "../../../core/regex/index.ts";

/** Tool search's program cap. */
const MAX_PROGRAM = 2_000;

/** A matcher as tool search compiles one, its steps counted against `budget` (unbounded by default). */
function compileSafeRegex(pattern: string, options: { budget?: number } = {}) {
  const regex = linearRegExp(pattern, "im", { maxProgram: MAX_PROGRAM });
  const budget = new StepBudget(options.budget ?? Number.MAX_SAFE_INTEGER);
  return {
    test: (text: string) => regex.test(text, budget),
    get steps() {
      return budget.used;
    },
  };
}

const PATTERNS = [
  "weather", "get_(weather|forecast)", "^get", "^price", "^b$", "price$", "^$", "a|", "(?:ab)+c", "(?<word>ab)?c", "a{2}", "a{2,}", "a{1,3}b",
  "a{0}b", "x*?y", "a+?", ".", "a.c", "[a-c]+", "[^a-c]", "[\\w-]+@", "[\\d.]", "\\d+\\.\\d+", "\\bcat\\b", "\\Bat", "\\w\\W",
  "\\s\\S", "\\x41", "\\u0042", "\\.", "\\n", "a\\nb", "[\\b]", "[]", "[^]", "k", "K", "s", "ſ", "[a-z]", "[^a]", "µ", "Μ",
  "a{", "x}", "]", "(a*)*b", "(a|b|)+c", "(\\b)*x", "$x", "x^", "[A-Z]{3}", "é", "É",
];
const TEXTS = [
  "", "weather", "GET_FORECAST now", "get\nprice", "PRICE\nx", "aab", "aaac", "abc", "ABABC", "xy", "a", "a.c",
  "foo-bar@", "1.5", "3.", "the cat sat", "concat", "bat", "\n", "a\nb", "\b", "k", "K", "S", "ſ", "µ", "μ", "Μ",
  "a{", "x}", "]", "aaaab", "ccc", "ABC", "éÉ", "b", "x",
];

describe("safe regex: same answers as JavaScript's RegExp with flags i and m", () => {
  test("every pattern against every text", () => {
    let compared = 0;
    for (const pattern of PATTERNS) {
      const reference = new RegExp(pattern, "im");
      const safe = compileSafeRegex(pattern);
      for (const text of TEXTS) {
        const expected = reference.test(text);
        if (safe.test(text) !== expected) throw new Error(`${JSON.stringify(pattern)} on ${JSON.stringify(text)}: expected ${expected}`);
        compared++;
      }
    }
    expect(compared).toBe(PATTERNS.length * TEXTS.length);
  });

  test("case folding follows JavaScript without the u flag", () => {
    expect(compileSafeRegex("s").test("ſ")).toBe(false); // a non-ASCII letter never folds into ASCII
    expect(compileSafeRegex("[^a]").test("A")).toBe(false);
    expect(compileSafeRegex("µ").test("μ")).toBe(true); // both upper-case to Μ
    expect(compileSafeRegex("[a-z]").test("Q")).toBe(true);
  });
});

describe("safe regex: refused and invalid patterns", () => {
  const refusal = (pattern: string) => {
    try {
      compileSafeRegex(pattern);
    } catch (error) {
      expect(error).toBeInstanceOf(PatternError);
      return (error as Error).message;
    }
    throw new Error(`${pattern} was accepted`);
  };

  test("syntax errors carry JavaScript's message", () => {
    expect(refusal("(")).toMatch(/Invalid regular expression/);
    expect(refusal("a**")).toMatch(/nothing to repeat/);
    expect(refusal("[b-a]")).toMatch(/Invalid regular expression/);
  });

  test("features no automaton runs in linear time are refused by name", () => {
    expect(refusal("(a)\\1")).toBe("backreferences are not supported");
    expect(refusal("(?<n>a)\\k<n>")).toBe("backreferences are not supported");
    expect(refusal("a(?=b)")).toBe("lookahead and lookbehind are not supported");
    expect(refusal("a(?!b)")).toBe("lookahead and lookbehind are not supported");
    expect(refusal("(?<=a)b")).toBe("lookahead and lookbehind are not supported");
    expect(refusal("(?<!a)b")).toBe("lookahead and lookbehind are not supported");
    expect(refusal("\\cA")).toBe("\\c control escapes are not supported");
    expect(refusal("\\01")).toBe("octal escapes are not supported");
  });

  test("repetition is bounded", () => {
    expect(refusal("a{1001}")).toBe("repetition count over 1000");
    expect(refusal("(a{1000}){3}")).toBe(`pattern too complex (more than ${MAX_PROGRAM} instructions once repetitions are expanded)`);
    expect(compileSafeRegex("a{1000}").test("a".repeat(1000))).toBe(true);
    expect(compileSafeRegex("a{1000}").test("a".repeat(999))).toBe(false);
  });
});

describe("safe regex: cost", () => {
  test("steps grow linearly with the text for patterns that backtrack exponentially in RegExp", () => {
    const small = compileSafeRegex("(a+)+b");
    small.test("a".repeat(1_000));
    const large = compileSafeRegex("(a+)+b");
    large.test("a".repeat(10_000));
    expect(large.steps).toBeLessThan(small.steps * 11);
    expect(large.steps).toBeLessThan(10_000 * 20);
  });

  test("the step budget is shared by every test() call and throws when exceeded", () => {
    const regex = compileSafeRegex("[a-z]{1,50}@", { budget: 50_000 });
    expect(regex.test("abc@")).toBe(true);
    expect(() => {
      for (let i = 0; i < 100; i++) regex.test("abcdefghij".repeat(100));
    }).toThrow(RegexBudgetError);
    expect(regex.steps).toBeGreaterThan(50_000);
  });
});

describe("the u flag (JSON Schema patterns): code points, \\u{…}, \\p{…}", () => {
  const patterns = [
    "^.$", "^..$", "^.{1,2}$", "[^a]", "^[^a]$", "\\S", "^\\S$", "😀", "^😀+$", "[😀-😂]", "^[\\u{1F600}-\\u{1F64F}]$", "\\u{1F601}",
    "\\uD83D\\uDE00", "\\uD83D", "^\\uDE00", "\\p{L}+", "^\\p{Lu}\\p{Ll}*$", "\\P{L}", "[\\p{N}_]+$", "^\\p{Script=Greek}+$", "a.b", "^$",
    "^[a-z]+$", "\\bx\\b", "(?:ab|a)+c",
  ];
  const texts = ["", "a", "😀", "😀😀", "😁", "x😀y", "\uD83D", "\uDE00", "\uD83Dx", "\uDE00😀", "αβγ", "Ωmega", "A1_", "abc", "a😀b", "a\nb", "x", "5"];

  test("every pattern against every text answers as RegExp with the u flag does", () => {
    let compared = 0;
    for (const pattern of patterns) {
      const reference = new RegExp(pattern, "u");
      const linear = linearRegExp(pattern, "u");
      for (const text of texts) {
        const expected = reference.test(text);
        if (linear.test(text) !== expected) throw new Error(`${JSON.stringify(pattern)} on ${JSON.stringify(text)}: expected ${expected}`);
        compared++;
      }
    }
    expect(compared).toBe(patterns.length * texts.length);
  });

  test("u-only syntax is checked by RegExp; i with u, and flags a test has no use for, are refused", () => {
    expect(() => linearRegExp("\\q", "u")).toThrow(PatternError);
    expect(() => linearRegExp("\\p{Nope}", "u")).toThrow(/Invalid regular expression/);
    expect(() => linearRegExp("a", "iu")).toThrow("the i and u flags together are not supported");
    expect(() => linearRegExp("a", "g")).toThrow("the g flag is not supported");
    expect(linearRegExp("\\p{L}", "").test("p{L}")).toBe(true); // without u, an identity escape (Annex B)
  });

  test("toString tells patterns apart (Ajv dedupes compiled patterns by it)", () => {
    expect(String(linearRegExp("^a$", "u"))).toBe("/^a$/u");
    expect(String(linearRegExp("^a$", ""))).toBe("/^a$/");
  });
});
