/** core/accounting/pricing.ts: cost from usage and an endpoint's per-token prices. */
import { describe, expect, test } from "bun:test";
import { costOf } from "../../../core/accounting/pricing.ts";
import type { Usage } from "../../../core/model/usage.ts";

const usage = (input: number, output: number, x: Partial<{ cacheRead: number; cacheWrite: number; reasoning: number }> = {}): Usage => ({
  input: { total: input, cacheRead: x.cacheRead ?? 0, cacheWrite: x.cacheWrite ?? 0 },
  output: { total: output, reasoning: x.reasoning ?? 0 },
});

describe("costOf", () => {
  test("prompt and completion tokens at their prices", () => {
    expect(costOf(usage(1000, 500), { prompt: 0.0000005, completion: 0.0000015 })).toEqual({ total: 0.00125, input: 0.0005, output: 0.00075, upstream: null });
  });

  test("cache reads and writes use their own prices; the rest of the input the prompt price", () => {
    // 100 input tokens of which 60 read from cache and 10 written to it: 30 plain.
    const cost = costOf(usage(100, 0, { cacheRead: 60, cacheWrite: 10 }), { prompt: 0.01, completion: 0, cacheRead: 0.001, cacheWrite: 0.02 });
    expect(cost.input).toBe(0.56); // 30 × 0.01 + 60 × 0.001 + 10 × 0.02
    expect(cost.total).toBe(0.56);
  });

  test("without cache prices, cached tokens cost the prompt price", () => {
    expect(costOf(usage(100, 0, { cacheRead: 60, cacheWrite: 10 }), { prompt: 0.01, completion: 0 }).input).toBe(1);
  });

  test("cache counts larger than the total never make plain input negative", () => {
    expect(costOf(usage(10, 0, { cacheRead: 20 }), { prompt: 1, completion: 0, cacheRead: 0.5 }).input).toBe(10);
  });

  test("reasoning tokens are output tokens unless a reasoning price is set", () => {
    const u = usage(0, 100, { reasoning: 40 });
    expect(costOf(u, { prompt: 0, completion: 0.01 }).output).toBe(1);
    expect(costOf(u, { prompt: 0, completion: 0.01, reasoning: 0.02 }).output).toBe(1.4); // 60 × 0.01 + 40 × 0.02
  });

  test("a per-request price is added to the total only", () => {
    const cost = costOf(usage(10, 10), { prompt: 0.1, completion: 0.2, request: 0.05 });
    expect(cost).toEqual({ total: 3.05, input: 1, output: 2, upstream: null });
  });

  test("no-charge rule: a failure with zero output costs nothing, even with input and a request price", () => {
    expect(costOf(usage(500, 0), { prompt: 0.1, completion: 0.2, request: 1 }, true)).toEqual({ total: 0, input: 0, output: 0, upstream: null });
  });

  test("a failure that produced output is charged; a success with zero output is charged for input", () => {
    expect(costOf(usage(10, 1), { prompt: 0.1, completion: 0.2 }, true).total).toBe(1.2);
    expect(costOf(usage(10, 0), { prompt: 0.1, completion: 0.2 }, false).total).toBe(1);
  });

  test("float noise is rounded away at 1e-12 USD", () => {
    // 3 * 0.1 is 0.30000000000000004 in floating point.
    expect(costOf(usage(3, 0), { prompt: 0.1, completion: 0 }).total).toBe(0.3);
    expect(costOf(usage(7, 0), { prompt: 0.0000001, completion: 0 }).total).toBe(0.0000007);
  });

  test("free models cost zero", () => {
    expect(costOf(usage(1_000_000, 1_000_000), { prompt: 0, completion: 0 }).total).toBe(0);
  });
});
