/**
 * `bun bench/regex-steps.ts`: how fast the linear-time regex engine (core/regex) takes steps in its worst case, the
 * figure the guardrail pattern caps are derived from (core/guardrails/pattern/caps.ts, README "Caps on heavy work").
 * Each case is an automaton kept fully busy: every instruction of the program is visited at every character (nothing
 * can be skipped), over a text that never completes a match. Reports steps, time and steps per second per case, the
 * slowest case's rate, and the program size that rate allows for a 1 MB prompt in 1 s.
 */
import { compileRe2, PatternRun, StepBudget } from "../core/regex/index.ts";

const TEXT_CHARS = Number(process.env.REGEX_BENCH_CHARS ?? 20_000);
const ROUNDS = Number(process.env.REGEX_BENCH_ROUNDS ?? 5);

const CASES: Array<{ name: string; pattern: string; text: string }> = [
  // The hostile shape from the issue, at sizes a cap could allow: optional wildcards, then a letter that never comes.
  { name: "(?:.?){250}Z", pattern: "(?:.?){250}Z", text: "x".repeat(TEXT_CHARS) },
  { name: "(?:.?){1000}Z", pattern: "(?:.?){1000}Z", text: "x".repeat(TEXT_CHARS) },
  { name: "(?:(?:.?){100}){10}Z", pattern: "(?:(?:.?){100}){10}Z", text: "x".repeat(TEXT_CHARS) },
  // Classes searched by halves: a wide class in every position.
  { name: "[a-y0-9_,;:]{1,500}Z", pattern: "[a-y0-9_,;:]{1,500}Z", text: "ab,9;".repeat(TEXT_CHARS / 5) },
  // Case-insensitive alternation (a word list) kept alive by a repeated prefix.
  { name: "(?i)(?:ab|ac|ad|ae){1,200}Z", pattern: "(?i)(?:ab|ac|ad|ae){1,200}Z", text: "AbAcAdAe".repeat(TEXT_CHARS / 8) },
];
/** Ordinary patterns over ordinary text: most characters cannot begin a match and are skipped (one step each). */
const ORDINARY = "The quick brown fox jumps over the lazy dog, then writes 42 lines of prose. ".repeat(Math.ceil(5_000_000 / 75));
const ORDINARY_CASES = [
  { name: "plain string", pattern: "project-phoenix", text: ORDINARY },
  { name: "Z[0-9]+ (all skipped)", pattern: "Z[0-9]+", text: ORDINARY },
  { name: "secret-\\d+", pattern: "secret-\\d+", text: ORDINARY },
  { name: "(?i)\\b(?:fox|dog|cat)\\b", pattern: "(?i)\\b(?:fox|dog|cat)\\b", text: ORDINARY },
];

function measure(pattern: string, text: string): { steps: number; ms: number; size: number } {
  const program = compileRe2(pattern);
  let best = Infinity;
  let steps = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const budget = new StepBudget(Number.MAX_SAFE_INTEGER);
    // CPU time, not wall time: on a shared machine the process is often not running.
    const started = process.cpuUsage();
    PatternRun.spansOf(program, text, { budget });
    const used = process.cpuUsage(started);
    best = Math.min(best, (used.user + used.system) / 1000);
    steps = budget.used;
  }
  return { steps, ms: best, size: program.size };
}

let slowest = Infinity;
console.log(`text: ${TEXT_CHARS} characters, CPU time, best of ${ROUNDS} rounds`);
for (const { name, pattern, text } of CASES) {
  const { steps, ms, size } = measure(pattern, text);
  const rate = steps / (ms / 1000);
  slowest = Math.min(slowest, rate);
  console.log(`${name.padEnd(32)} program ${String(size).padStart(6)}  steps/char ${(steps / text.length).toFixed(0).padStart(6)}  ${ms.toFixed(1).padStart(8)} ms  ${(rate / 1e6).toFixed(1)} M steps/s`);
}
for (const { name, pattern, text } of ORDINARY_CASES) {
  const { steps, ms } = measure(pattern, text);
  console.log(`${name.padEnd(32)} ordinary text  steps/char ${(steps / text.length).toFixed(2).padStart(6)}  ${((ms * 1e6) / text.length).toFixed(1).padStart(6)} ns/char`);
}
console.log(`slowest: ${(slowest / 1e6).toFixed(1)} M steps/s → a 1 MB prompt in 1 s allows programs of ${Math.floor(slowest / 1_000_000)} instructions`);
