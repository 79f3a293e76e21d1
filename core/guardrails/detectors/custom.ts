/**
 * An operator's `content_filters` entry as a detector: its pattern compiled once (core/regex: linear time,
 * no lookaround or backreferences), findings named by the filter's label (the pattern itself is policy, never shown
 * to callers), redacted as `[REDACTED]`; the label names it in block messages (reference §5).
 */
import { compileRe2 as compilePattern, PatternRun, type Program } from "../../regex/index.ts";
import type { Detector, DetectorStream, Finding } from "./types.ts";

export function customDetector(pattern: string, label: string | undefined, index: number): Detector {
  const program: Program = compilePattern(pattern);
  const name = label ?? `content_filter_${index}`;
  return {
    slug: "custom",
    label: label ?? "REDACTED",
    engine: "regex",
    maxSpan: Infinity,
    placeholder: () => "[REDACTED]",
    find: (text) => PatternRun.spansOf(program, text).map((s) => ({ start: s.start, end: s.end, pattern: name })),
    stream: () => patternStream(program, name),
  };
}

function patternStream(program: Program, name: string): DetectorStream {
  const run = new PatternRun(program);
  return {
    feed: (text) => run.feed(text),
    finish: () => run.finish(),
    get findings(): Finding[] {
      return run.spans.map((s) => ({ start: s.start, end: s.end, pattern: name }));
    },
    liveFrom: () => run.liveFrom(),
  };
}
