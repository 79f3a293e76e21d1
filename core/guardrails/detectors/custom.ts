/**
 * An operator's `content_filters` entry as a detector: its pattern compiled once (core/regex, RE2 dialect: linear
 * time, no lookaround or backreferences), findings named by the filter's label (the pattern itself is policy, never
 * shown to callers), redacted as `[REDACTED]`; the label names it in block messages. A request's scans
 * run `within` its scan budget (pattern/scan-budget.ts), in slices that give the event loop back (`findSliced`).
 */
import { SLICE_MS, type Slices } from "../../model/slices.ts";
import { compileRe2, PatternRun, RegexBudgetError, type Program, type Span, type StepBudget } from "../../regex/index.ts";
import { STEPS_PER_SECOND } from "../pattern/caps.ts";
import type { Detector, DetectorStream, Finding } from "./types.ts";

/**
 * Steps of one piece of a sliced scan: a quarter of what the engine does in a slice at its slowest, so the loop is
 * given back close to SLICE_MS after the slice began (a pattern at the default cap reads 2,500 characters a piece).
 */
const PIECE_STEPS = (STEPS_PER_SECOND * SLICE_MS) / 1_000 / 4;

export interface CustomDetector extends Detector {
  /** The same detector with every step counted against `budget`; past it, scans throw what `exceeded` makes. */
  within(budget: StepBudget, exceeded: () => Error): Detector;
}

export function isCustomDetector(detector: Detector): detector is CustomDetector {
  return detector.slug === "custom" && "within" in detector;
}

export function customDetector(pattern: string, label: string | undefined, index: number): CustomDetector {
  const program: Program = compileRe2(pattern);
  const name = label ?? `content_filter_${index}`;
  const make = (budget: StepBudget | undefined, exceeded: () => Error): Detector => ({
    slug: "custom",
    label: label ?? "REDACTED",
    engine: "regex",
    maxSpan: Infinity,
    placeholder: () => "[REDACTED]",
    find: (text) => counted(exceeded, () => findings(PatternRun.spansOf(program, text, budget ? { budget } : {}), name)),
    findSliced: async (text, slices) => {
      // The engine reads a text fed in pieces as it reads it whole (streams rely on it): the same spans, the same steps.
      const run = new PatternRun(program, budget ? { budget } : {});
      const piece = Math.max(64, Math.floor(PIECE_STEPS / program.cost));
      for (let at = 0; at < text.length; at += piece) {
        counted(exceeded, () => run.feed(text.slice(at, at + piece)));
        await slices.next();
      }
      counted(exceeded, () => run.finish());
      return findings(run.spans, name);
    },
    stream: () => patternStream(new PatternRun(program, budget ? { budget } : {}), name, exceeded),
  });
  return { ...make(undefined, unbounded), within: (budget, exceeded) => make(budget, exceeded) };
}

function unbounded(): Error {
  return new Error("custom detector: a scan without a budget ran out of it");
}

function findings(spans: readonly Span[], name: string): Finding[] {
  return spans.map((s) => ({ start: s.start, end: s.end, pattern: name }));
}

/** Runs a scan, turning the engine's budget error into the request's. */
function counted<T>(exceeded: () => Error, scan: () => T): T {
  try {
    return scan();
  } catch (error) {
    if (error instanceof RegexBudgetError) throw exceeded();
    throw error;
  }
}

function patternStream(run: PatternRun, name: string, exceeded: () => Error): DetectorStream {
  return {
    feed: (text) => counted(exceeded, () => run.feed(text)),
    finish: () => counted(exceeded, () => run.finish()),
    get findings(): Finding[] {
      return findings(run.spans, name);
    },
    liveFrom: () => run.liveFrom(),
  };
}
