/**
 * What an operator's pattern may cost (README "Caps on heavy work"). Patterns run on the linear-time engine
 * (core/regex): a program of N instructions takes at most N steps per character of text (a plain string, 2), and the
 * engine takes about 100 million steps a second at worst (`bun bench/regex-steps.ts`: 105–180 M/s of CPU time on the
 * reference 2-core machine under load, rounded down). So the default cap on one pattern's program is what a 1 MB
 * prompt scans in under 1 s, and the default scan budget of one request is 1 s of steps on each side.
 */
import type { GatewayConfig } from "../../config/types.ts";
import { compileRe2, PatternError, type Program } from "../../regex/index.ts";

export { MAX_PATTERN_LENGTH } from "../../regex/index.ts";

/** Worst-case steps per second of the engine (measured as above). */
export const STEPS_PER_SECOND = 100_000_000;
/** Default cap on one pattern's program: `STEPS_PER_SECOND` steps over a 1 MB prompt. */
export const DEFAULT_PATTERN_MAX_INSTRUCTIONS = STEPS_PER_SECOND / 1_000_000;
/** Default steps the content filters of one request may take on each side (its prompt, its answer): 1 s. */
export const DEFAULT_SCAN_BUDGET_STEPS = STEPS_PER_SECOND;

export interface GuardrailCaps {
  patternMaxInstructions: number;
  scanBudgetSteps: number;
}

/** The caps in force (config `guardrails`, defaults above). */
export function guardrailCaps(config: Pick<GatewayConfig, "guardrails">): GuardrailCaps {
  return {
    patternMaxInstructions: config.guardrails?.patternMaxInstructions ?? DEFAULT_PATTERN_MAX_INSTRUCTIONS,
    scanBudgetSteps: config.guardrails?.scanBudgetSteps ?? DEFAULT_SCAN_BUDGET_STEPS,
  };
}

/**
 * Compiles a pattern given through the management API, refusing (PatternError) what is invalid, refused by the
 * dialect, or costlier per character of text than `maxInstructions`. Patterns already stored are compiled without
 * the cap (they keep working after it is lowered), their scans bounded by the request's budget instead.
 */
export function compileNewPattern(source: string, maxInstructions: number): Program {
  const program = compileRe2(source);
  if (program.cost > maxInstructions) {
    throw new PatternError(
      `too costly to scan: it compiles to ${program.cost.toLocaleString("en-US")} instructions, each of which may take a step per character of text; ` +
        `at most ${maxInstructions.toLocaleString("en-US")} are allowed (config guardrails.pattern_max_instructions)`,
    );
  }
  return program;
}
