/** Retries and fallbacks read off a request's attempts (core/observe/attempts.ts). */
import { describe, expect, test } from "bun:test";
import { attemptOutcome, attemptStep } from "../../../core/observe/attempts.ts";
import type { Attempt } from "../../../core/pipeline/context.ts";

const ok = (model: string, providerId: string): Attempt => ({ model, providerId, startedAt: 0, endedAt: 1, status: 200 });
const failed = (model: string, providerId: string, errorType = "provider_unavailable"): Attempt => ({ model, providerId, startedAt: 0, endedAt: 1, status: 502, errorType });

describe("attempt steps", () => {
  test("same endpoint after a failure is a retry; another endpoint or model is a fallback", () => {
    const attempts = [failed("m", "a"), failed("m", "a"), failed("m", "b"), ok("n", "c")];
    expect(attempts.map((_, i) => attemptStep(attempts, i))).toEqual(["first", "retry", "fallback", "fallback"]);
  });

  test("an attempt after a success starts a new turn", () => {
    const attempts = [ok("m", "a"), ok("m", "a"), failed("m", "a"), ok("m", "a")];
    expect(attempts.map((_, i) => attemptStep(attempts, i))).toEqual(["first", "first", "first", "retry"]);
  });

  test("a refusal that moved on is a fallback (status 200, error type refusal)", () => {
    const attempts = [{ ...ok("m", "a"), errorType: "refusal" }, ok("n", "b")];
    expect(attemptStep(attempts, 1)).toBe("fallback");
    expect(attemptOutcome(attempts[0]!)).toBe("refusal");
  });

  test("outcomes", () => {
    expect(attemptOutcome(ok("m", "a"))).toBe("success");
    expect(attemptOutcome(failed("m", "a", "timeout"))).toBe("timeout");
    expect(attemptOutcome({ model: "m", providerId: "a", startedAt: 0, status: 500 })).toBe("error");
  });
});
