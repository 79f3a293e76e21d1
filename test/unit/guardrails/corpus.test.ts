/**
 * The built-in detectors on the labelled corpus (test/fixtures/guardrails/corpus.ts): every positive found by its
 * detector, and clean look-alikes passed; detection and false-positive rates printed per detector (README
 * "Guardrails" keeps them). Floors, not targets: a change that makes a detector worse fails here.
 */
import { describe, expect, test } from "bun:test";
import { BUILTIN_DETECTORS } from "../../../core/guardrails/detectors/builtins.ts";
import { CORPUS, HELD_OUT, type Sample } from "../../fixtures/guardrails/corpus.ts";

/** Minimum detection rate and maximum false-positive rate per detector. */
const FLOORS: Record<string, { detection: number; falsePositives: number }> = {
  email: { detection: 1, falsePositives: 0 },
  phone: { detection: 0.9, falsePositives: 0.12 },
  ssn: { detection: 1, falsePositives: 0 },
  "credit-card": { detection: 1, falsePositives: 0 },
  "ip-address": { detection: 1, falsePositives: 0.17 },
  "person-name": { detection: 0.9, falsePositives: 0.1 },
  address: { detection: 0.9, falsePositives: 0.2 },
  secrets: { detection: 1, falsePositives: 0.1 },
  "regex-prompt-injection": { detection: 0.95, falsePositives: 0.07 },
};

describe("built-in detectors on the labelled corpus", () => {
  test("the corpus has at least 200 labelled texts", () => {
    expect(CORPUS.length + HELD_OUT.length).toBeGreaterThanOrEqual(200);
  });

  const rows: string[] = [];
  for (const [slug, detector] of BUILTIN_DETECTORS) {
    test(`${slug}: detection and false-positive rates`, () => {
      const positives = CORPUS.filter((s) => s.expect.includes(slug));
      const negatives = CORPUS.filter((s) => s.expect.length === 0 && s.near === slug);
      const missed = positives.filter((s) => detector.find(s.text).length === 0).map((s) => s.text);
      const flagged = negatives.filter((s) => detector.find(s.text).length > 0).map((s) => s.text);
      const detection = (positives.length - missed.length) / positives.length;
      const falsePositives = flagged.length / negatives.length;
      rows.push(`| \`${slug}\` | ${positives.length} | ${(detection * 100).toFixed(1)}% | ${negatives.length} | ${(falsePositives * 100).toFixed(1)}% |`);
      if (missed.length || flagged.length) console.log(slug, { missed, flagged });
      expect(detection).toBeGreaterThanOrEqual(FLOORS[slug]!.detection);
      expect(falsePositives).toBeLessThanOrEqual(FLOORS[slug]!.falsePositives);
    });
  }

  test("rates (README table)", () => {
    console.log(["| builtin | positives | detected | clean look-alikes | false positives |", "|---|---|---|---|---|", ...rows].join("\n"));
    console.log(["held out (never tuned on):", "| builtin | positives | detected | clean look-alikes | false positives |", "|---|---|---|---|---|", ...heldOutRows()].join("\n"));
    // Every clean text passes every detector it was not written against, too (no detector fires on the others' look-alikes).
    const cross = CORPUS.filter((s) => s.expect.length === 0).flatMap((s) => [...BUILTIN_DETECTORS.values()].filter((d) => d.slug !== s.near && d.find(s.text).length > 0).map((d) => `${d.slug}: ${s.text}`));
    console.log("cross-detector false positives:", cross.length, cross);
  });
});

/** Rates on the held-out texts, reported as they are (no floor: they were written to measure, not to pass). */
function heldOutRows(): string[] {
  return [...BUILTIN_DETECTORS].map(([slug, detector]) => {
    const positives = HELD_OUT.filter((s: Sample) => s.expect.includes(slug));
    const negatives = HELD_OUT.filter((s: Sample) => s.expect.length === 0 && s.near === slug);
    const found = positives.filter((s) => detector.find(s.text).length > 0).length;
    const flagged = negatives.filter((s) => detector.find(s.text).length > 0);
    const missed = positives.filter((s) => detector.find(s.text).length === 0).map((s) => s.text);
    if (missed.length || flagged.length) console.log("held out", slug, { missed, flagged: flagged.map((s) => s.text) });
    return `| \`${slug}\` | ${positives.length} | ${((found / positives.length) * 100).toFixed(1)}% | ${negatives.length} | ${((flagged.length / negatives.length) * 100).toFixed(1)}% |`;
  });
}
