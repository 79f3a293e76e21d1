/**
 * The caps on operators' patterns (core/guardrails/pattern/caps.ts, README "Caps on heavy work"): defaults derived
 * from the engine's measured worst-case speed, the config that changes them, and the check made at creation.
 */
import { expect, test } from "bun:test";
import { buildConfig, ConfigError, validateConfigFile } from "../../../../core/config/load.ts";
import { customDetector } from "../../../../core/guardrails/detectors/custom.ts";
import {
  compileNewPattern,
  DEFAULT_PATTERN_MAX_INSTRUCTIONS,
  DEFAULT_SCAN_BUDGET_STEPS,
  guardrailCaps,
  MAX_PATTERN_LENGTH,
  STEPS_PER_SECOND,
} from "../../../../core/guardrails/pattern/caps.ts";
import { PatternError } from "../../../../core/regex/index.ts";

const build = (raw: unknown) => buildConfig(validateConfigFile(raw), {}, "/cfg");

test("defaults: one pattern scans a 1 MB prompt within a second of steps; a request's scans get a second on each side", () => {
  expect(DEFAULT_PATTERN_MAX_INSTRUCTIONS * 1_000_000).toBe(STEPS_PER_SECOND);
  expect(DEFAULT_SCAN_BUDGET_STEPS).toBe(STEPS_PER_SECOND);
  expect(guardrailCaps(build({}))).toEqual({ patternMaxInstructions: 100, scanBudgetSteps: 100_000_000 });
});

test("config guardrails.pattern_max_instructions and scan_budget_steps replace them; bad values name the field", () => {
  expect(guardrailCaps(build({ guardrails: { pattern_max_instructions: 5_000, scan_budget_steps: 7 } }))).toEqual({ patternMaxInstructions: 5_000, scanBudgetSteps: 7 });
  expect(guardrailCaps(build({ guardrails: { scan_budget_steps: 7 } }))).toEqual({ patternMaxInstructions: 100, scanBudgetSteps: 7 });
  for (const [guardrails, field] of [
    [{ pattern_max_instructions: 1 }, "guardrails.pattern_max_instructions"],
    [{ pattern_max_instructions: 250_001 }, "guardrails.pattern_max_instructions"],
    [{ scan_budget_steps: 0 }, "guardrails.scan_budget_steps"],
    [{ other: 1 }, "guardrails"],
  ] as const) {
    expect(() => build({ guardrails })).toThrow(ConfigError);
    expect(() => build({ guardrails })).toThrow(`"${field}`);
  }
});

test("at creation a program over the cap is refused, a plain string of the longest length is not", () => {
  expect(() => compileNewPattern("(?:(?:.?){1000}){120}Z", 100)).toThrow(PatternError);
  expect(() => compileNewPattern("(?:(?:.?){1000}){120}Z", 100)).toThrow("it compiles to 240,002 instructions");
  expect(compileNewPattern("(?:.?){49}Z", 100).cost).toBe(100);
  expect(() => compileNewPattern("(?:.?){49}Z", 99)).toThrow("at most 99 are allowed (config guardrails.pattern_max_instructions)");
  expect(compileNewPattern("x".repeat(MAX_PATTERN_LENGTH), 100).cost).toBe(2);
  expect(() => compileNewPattern("x".repeat(MAX_PATTERN_LENGTH + 1), 100)).toThrow(`longer than ${MAX_PATTERN_LENGTH}`);
});

test("a pattern stored before the cap was lowered still compiles for requests (its scans are bounded by the budget)", () => {
  const detector = customDetector("(?:(?:.?){1000}){120}Z", "OLD", 0);
  expect(detector.find("short text without the letter")).toEqual([]);
});
