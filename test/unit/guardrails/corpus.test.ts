/**
 * The built-in detectors on the labelled corpus (test/fixtures/guardrails/corpus.ts): every positive found by its
 * detector, and clean look-alikes passed; detection and false-positive rates printed per detector (README
 * "Guardrails" keeps them) and held to floors, on the tuned and the held-out texts. Floors, not targets: a change
 * that makes a detector worse fails here.
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

/**
 * The same on the held-out texts, at what README "Guardrails" states: every positive found except `phone` (3 of 5),
 * no false positives. They were written to measure, not to pass: a floor here only keeps a detector from getting worse.
 */
const HELD_OUT_FLOORS: Record<string, { detection: number; falsePositives: number }> = {
  ...Object.fromEntries([...BUILTIN_DETECTORS.keys()].map((slug) => [slug, { detection: 1, falsePositives: 0 }])),
  phone: { detection: 0.6, falsePositives: 0 },
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

  test("rates (README table), and the held-out rates at the README's figures", () => {
    const heldOut = heldOutRates();
    console.log(["| builtin | positives | detected | clean look-alikes | false positives |", "|---|---|---|---|---|", ...rows].join("\n"));
    console.log(["held out (never tuned on):", "| builtin | positives | detected | clean look-alikes | false positives |", "|---|---|---|---|---|", ...heldOut.map((rate) => rate.row)].join("\n"));
    expect(heldOut.length).toBe(BUILTIN_DETECTORS.size);
    for (const { slug, detection, falsePositives } of heldOut) {
      expect({ slug, detection: detection >= HELD_OUT_FLOORS[slug]!.detection, falsePositives: falsePositives <= HELD_OUT_FLOORS[slug]!.falsePositives }).toEqual({
        slug,
        detection: true,
        falsePositives: true,
      });
    }
  });

  test("no detector fires on a clean text written against another one", () => {
    const cross = CORPUS.filter((s) => s.expect.length === 0).flatMap((s) => [...BUILTIN_DETECTORS.values()].filter((d) => d.slug !== s.near && d.find(s.text).length > 0).map((d) => `${d.slug}: ${s.text}`));
    expect(cross).toEqual([]);
  });
});

/** Rates on the held-out texts, with their README table row. */
function heldOutRates(): Array<{ slug: string; detection: number; falsePositives: number; row: string }> {
  return [...BUILTIN_DETECTORS].map(([slug, detector]) => {
    const positives = HELD_OUT.filter((s: Sample) => s.expect.includes(slug));
    const negatives = HELD_OUT.filter((s: Sample) => s.expect.length === 0 && s.near === slug);
    const found = positives.filter((s) => detector.find(s.text).length > 0).length;
    const flagged = negatives.filter((s) => detector.find(s.text).length > 0);
    const missed = positives.filter((s) => detector.find(s.text).length === 0).map((s) => s.text);
    if (missed.length || flagged.length) console.log("held out", slug, { missed, flagged: flagged.map((s) => s.text) });
    const detection = found / positives.length;
    const falsePositives = flagged.length / negatives.length;
    const row = `| \`${slug}\` | ${positives.length} | ${(detection * 100).toFixed(1)}% | ${negatives.length} | ${(falsePositives * 100).toFixed(1)}% |`;
    return { slug, detection, falsePositives, row };
  });
}
