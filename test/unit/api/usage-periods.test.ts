/** Usage rolled up by UTC day, week (from Monday) and month (core/api/usage-periods.ts). */
import { describe, expect, test } from "bun:test";
import { periodStart, rollUp } from "../../../core/api/usage-periods.ts";

const day = (iso: string) => Date.parse(`${iso}T00:00:00Z`) / 86_400_000;

describe("usage periods", () => {
  test("weeks start on Monday, months on the 1st", () => {
    expect(periodStart(day("2025-07-16"), "week")).toBe(day("2025-07-14")); // a Wednesday
    expect(periodStart(day("2025-07-14"), "week")).toBe(day("2025-07-14")); // the Monday itself
    expect(periodStart(day("2025-07-13"), "week")).toBe(day("2025-07-07")); // a Sunday
    expect(periodStart(day("2025-02-28"), "month")).toBe(day("2025-02-01"));
    expect(periodStart(day("2025-02-28"), "day")).toBe(day("2025-02-28"));
  });

  test("roll-up sums per period and group, names keys, orders by period then group", () => {
    const rows = [
      { day: day("2025-07-15"), group: "h1", requests: 1, inputTokens: 10, outputTokens: 5, cost: 0.1 },
      { day: day("2025-07-16"), group: "h1", requests: 2, inputTokens: 20, outputTokens: 6, cost: 0.2 },
      { day: day("2025-07-16"), group: "h2", requests: 1, inputTokens: 1, outputTokens: 1, cost: 0.3 },
    ];
    expect(rollUp(rows, "week", new Map([["h1", "alpha (sk…1)"]]))).toEqual([
      { period: "2025-07-14", group: "alpha (sk…1)", requests: 3, input_tokens: 30, output_tokens: 11, cost: 0.3 },
      { period: "2025-07-14", group: "h2", requests: 1, input_tokens: 1, output_tokens: 1, cost: 0.3 },
    ]);
    expect(rollUp(rows, "day").map((p) => p.period)).toEqual(["2025-07-15", "2025-07-16", "2025-07-16"]);
  });
});
