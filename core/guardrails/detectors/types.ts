/**
 * A detector finds spans of one kind in a text: a built-in (email, secrets, prompt injection…) or an operator's
 * pattern. Everything a guardrail does with text (block, redact, flag; on the request and on the answer, whole or
 * streamed) goes through this one shape.
 */
import type { Slices } from "../../model/slices.ts";

/** One finding: `[start, end)` in UTF-16 code units of the scanned text, and what it is. */
export interface Finding {
  start: number;
  end: number;
  /** What matched, named for `error.metadata.patterns`: a built-in's sub-pattern (`aws_access_key`) or the filter's label. Never the matched text. */
  pattern: string;
}

export interface Detector {
  /** The builtin slug (`email`) or `custom`. */
  readonly slug: string;
  /** Placeholder label for redaction: `EMAIL` gives `[EMAIL]`. */
  readonly label: string;
  /** The engine that found it (the pipeline entry's `engines`): `regex`, `secrets`, `heuristic`. */
  readonly engine: string;
  /**
   * The most text one finding can span (code units), for streamed output: text this far from the end may still
   * become part of a finding. `Infinity` when unbounded (an operator's pattern; streamed through `stream()`).
   */
  readonly maxSpan: number;
  /** The redaction placeholder of a finding; default `[<label>]`. */
  placeholder?(finding: Finding): string;
  /** Every finding in `text` (any order, may overlap: callers merge). */
  find(text: string): Finding[];
  /**
   * What `find` finds, read in pieces of a bounded number of steps with `slices.next()` between them, so a long scan
   * gives the event loop back (an operator's pattern over a big text). Absent: the scan calls `find`, or runs it in a
   * worker thread when the text is big (scan.ts).
   */
  findSliced?(text: string, slices: Slices): Promise<Finding[]>;
  /**
   * Where in a growing `text` a finding might still begin (detectors/hold.ts): text before it is final for this
   * detector. Absent: `text.length - maxSpan`.
   */
  holdFrom?(text: string): number;
  /** A resumable scan for unbounded patterns; absent: streamed by re-scanning from `holdFrom`. */
  stream?(): DetectorStream;
}

/** A scan over text fed in pieces (see pattern/program.ts `PatternRun`). */
export interface DetectorStream {
  feed(text: string): void;
  finish(): void;
  /** Findings so far (absolute offsets); the last may still grow until its end is below `liveFrom()`. */
  readonly findings: readonly Finding[];
  /** Where the earliest match still in progress began (`Infinity` when none is). */
  liveFrom(): number;
}

/** Findings of a global native RegExp, each kept when `accept` says so (a Luhn check, a context test). */
export function regexFindings(re: RegExp, text: string, pattern: string | ((m: RegExpExecArray) => string), accept?: (m: RegExpExecArray) => boolean): Finding[] {
  const found: Finding[] = [];
  re.lastIndex = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    if (m[0].length === 0) {
      re.lastIndex++;
      continue;
    }
    if (accept && !accept(m)) {
      // Retry one character later: a rejected candidate may hide a good one that overlaps it.
      re.lastIndex = m.index + 1;
      continue;
    }
    found.push({ start: m.index, end: m.index + m[0].length, pattern: typeof pattern === "string" ? pattern : pattern(m) });
  }
  return found;
}

/** Merges findings of several sources into non-overlapping ones, in order (the earlier finding names a merge). */
export function mergeFindings(findings: Finding[]): Finding[] {
  if (findings.length < 2) return findings;
  findings.sort((a, b) => a.start - b.start || b.end - a.end);
  const out: Finding[] = [findings[0]!];
  for (let i = 1; i < findings.length; i++) {
    const f = findings[i]!;
    const last = out[out.length - 1]!;
    if (f.start < last.end) {
      if (f.end > last.end) last.end = f.end;
    } else out.push({ ...f });
  }
  return out;
}
