/** plugins/router-kit: price percentiles (the cost-tier bands), default quality, and the pareto frontier. */
import { describe, expect, test } from "bun:test";
import type { ModelView } from "../../../../core/sdk/index.ts";
import { pricePercentiles, qualityOf, type Candidate } from "../../../../plugins/router-kit/candidates.ts";
import { defaultQuality } from "../../../../plugins/router-kit/quality.ts";
import { frontier, tierOf } from "../../../../plugins/pareto-router/frontier.ts";

const candidate = (id: string, price: number, quality?: Record<string, number>): Candidate => ({
  id,
  promptPrice: price,
  completionPrice: price,
  price,
  contextLength: undefined,
  throughput: undefined,
  view: { id, endpoints: [], ...(quality ? { quality } : {}) } as ModelView,
});

describe("price percentiles", () => {
  test("the share of candidates strictly cheaper: five prices are one per band; equal prices share a rank", () => {
    const five = ["a", "b", "c", "d", "e"].map((id, i) => candidate(id, (i + 1) / 1e6));
    expect([...pricePercentiles(five).values()]).toEqual([0, 20, 40, 60, 80]);
    const ties = [candidate("a", 1), candidate("b", 1), candidate("c", 2), candidate("d", 3)];
    expect([...pricePercentiles(ties).values()]).toEqual([0, 0, 50, 75]);
  });
});

describe("quality", () => {
  test("the config's score for the task, else its general score, else the default from the price rank", () => {
    const ranks = new Map([["m", 100]]);
    expect(qualityOf(candidate("m", 1, { coding: 0.9, general: 0.4 }), "coding", ranks)).toBe(0.9);
    expect(qualityOf(candidate("m", 1, { coding: 0.9, general: 0.4 }), "chat", ranks)).toBe(0.4);
    expect(qualityOf(candidate("m", 1), "reasoning", ranks)).toBe(0.9);
  });

  test("defaults: dearer is better, less so for simple tasks; the id nudges it", () => {
    expect(defaultQuality("x/cheap", "reasoning", 0)).toBe(0.5);
    expect(defaultQuality("x/dear", "reasoning", 100)).toBe(0.9);
    expect(defaultQuality("x/dear", "chat", 100)).toBe(0.8);
    expect(defaultQuality("x/cheap", "chat", 0)).toBe(0.6);
    expect(defaultQuality("x/qwen-coder", "coding", 0)).toBe(0.58);
    expect(defaultQuality("x/qwen-coder", "chat", 0)).toBe(0.6);
  });
});

describe("pareto frontier", () => {
  test("keeps the models no other beats on both price and score, cheapest first", () => {
    const models = [candidate("cheap-bad", 1), candidate("cheap-good", 2), candidate("dear-worse", 5), candidate("dear-best", 9)];
    const score: Record<string, number> = { "cheap-bad": 0.2, "cheap-good": 0.6, "dear-worse": 0.5, "dear-best": 0.9 };
    expect(frontier(models, (c) => c.price, (c) => score[c.id]!).map((c) => c.id)).toEqual(["cheap-bad", "cheap-good", "dear-best"]);
  });

  test("tiers: ≥ 0.66 high, ≥ 0.33 medium, else low", () => {
    expect([tierOf(0.66), tierOf(0.659), tierOf(0.33), tierOf(0.329)]).toEqual(["high", "medium", "medium", "low"]);
  });
});
