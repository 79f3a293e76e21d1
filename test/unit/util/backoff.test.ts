/** core/util/backoff.ts: full-jitter retry waits and an abortable sleep. */
import { describe, expect, test } from "bun:test";
import { fullJitter, sleep } from "../../../core/util/backoff.ts";

describe("backoff", () => {
  test("full jitter stays below min(max, base·2^retry)", () => {
    expect(fullJitter(0, 100, 1_000, () => 0.999)).toBe(99);
    expect(fullJitter(3, 100, 1_000, () => 0.5)).toBe(400);
    expect(fullJitter(10, 100, 1_000, () => 0.5)).toBe(500);
    expect(fullJitter(2, 100, 1_000, () => 0)).toBe(0);
  });

  test("sleep ends early with the abort reason", async () => {
    const controller = new AbortController();
    const pending = sleep(10_000, controller.signal);
    controller.abort(new Error("client gone"));
    await expect(pending).rejects.toThrow("client gone");
  });
});
