/**
 * The built-in detectors run on a backtracking engine (JavaScript's RegExp), so each is written to stay linear;
 * this is the regression test: adversarial texts of 20,000 characters (long runs of what a pattern repeats, words
 * two lists share, almost-matches) each take a few milliseconds, never seconds.
 */
import { expect, test } from "bun:test";
import { BUILTIN_DETECTORS } from "../../../core/guardrails/detectors/builtins.ts";

const N = 20_000;
const ADVERSARIAL: Record<string, string> = {
  "fillers after a verb": "ignore " + "all your previous the ".repeat(N / 22) + "x",
  "qualifiers without a noun": "disregard " + "previous ".repeat(N / 9),
  "extraction words": "reveal " + "the full system ".repeat(N / 16),
  "bypass fillers": "bypass " + "all any every ".repeat(N / 14) + "thing",
  "spelled-out letters": "a ".repeat(N / 2),
  "leetspeak": "1g0r3 ".repeat(N / 6),
  "one long word": "a".repeat(N),
  "digits and separators": "1 2-3.4 ".repeat(N / 8),
  "dotted numbers": "1.1.1.1.".repeat(N / 8),
  "colons": ":".repeat(N) + "1",
  "hex groups": "ab:cd:".repeat(N / 6),
  "at signs": "a@".repeat(N / 2),
  "email-like": "a.".repeat(N / 2) + "@",
  "capitalised words": "Mr. " + "Aa ".repeat(N / 3),
  "numbers and capitals": "12 " + "Main ".repeat(N / 5),
  "an open key block": "-----BEGIN RSA PRIVATE KEY-----\n" + "QUJD".repeat(N / 4),
  "credential cue": "password = " + "a".repeat(N),
  "base64": "QUJD".repeat(N / 4),
  "angle brackets": "<|".repeat(N / 2),
  "dollar signs": "$".repeat(N),
};

test("every built-in stays fast on adversarial text", () => {
  const slow: string[] = [];
  for (const [name, text] of Object.entries(ADVERSARIAL)) {
    for (const detector of BUILTIN_DETECTORS.values()) {
      const started = performance.now();
      detector.find(text);
      const ms = performance.now() - started;
      if (ms > 250) slow.push(`${detector.slug} on ${name}: ${ms.toFixed(0)} ms`);
    }
  }
  expect(slow).toEqual([]);
});
