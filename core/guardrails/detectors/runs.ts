/**
 * Maximal runs of the base64 / base64url alphabet (`A–Z a–z 0–9 + / _ - =`) of at least 24 characters: what an
 * encoded payload (prompt injection) and a high-entropy credential (secrets) both look like. Two detectors read the
 * same text one after the other, so the runs of the last text are kept: one pass instead of two.
 */
export interface Run {
  start: number;
  end: number;
}

import { codesOf } from "./codes.ts";

const MIN = 24;
let lastText: string | undefined;
let lastRuns: Run[] = [];

const inAlphabet = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 43 || c === 47 || c === 95 || c === 45 || c === 61;

export function alphabetRuns(text: string): readonly Run[] {
  if (text === lastText) return lastRuns;
  const codes = codesOf(text);
  const runs: Run[] = [];
  let start = -1;
  for (let i = 0; i <= codes.length; i++) {
    if (i < codes.length && inAlphabet(codes[i]!)) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      if (i - start >= MIN) runs.push({ start, end: i });
      start = -1;
    }
  }
  lastText = text;
  lastRuns = runs;
  return runs;
}
