/** core/pipeline/turn/spend.ts: what one request spent across its turns and plugin charges. */
import { describe, expect, test } from "bun:test";
import type { Cost } from "../../../../core/model/usage.ts";
import { Spend } from "../../../../core/pipeline/turn/spend.ts";
import { usageOf } from "../helpers.ts";

const cost = (total: number, input: number, output: number, upstream: number | null = null): Cost => ({ total, input, output, upstream });

describe("Spend", () => {
  test("starts empty: no usage, zero cost, nothing compound", () => {
    const spend = new Spend();
    expect(spend.usage).toEqual(usageOf(0, 0));
    expect(spend.totalCost()).toEqual(cost(0, 0, 0));
    expect(spend.isCompound()).toBe(false);
    expect([spend.turns, spend.settledTurns, spend.finish, spend.status, spend.errorType]).toEqual([0, 0, undefined, 200, undefined]);
  });

  test("addTurn: the first turn is taken as it is, later ones are summed (usage and cost)", () => {
    const spend = new Spend();
    spend.addTurn(usageOf(4, 3, { cacheRead: 1, reasoning: 2 }), cost(0.3, 0.1, 0.2));
    expect(spend.usage).toEqual(usageOf(4, 3, { cacheRead: 1, reasoning: 2 }));
    expect(spend.cost).toEqual(cost(0.3, 0.1, 0.2));
    spend.addTurn(usageOf(6, 1, { cacheWrite: 2 }), cost(0.4, 0.3, 0.1, 0.5));
    expect(spend.settledTurns).toBe(2);
    expect(spend.usage).toEqual(usageOf(10, 4, { cacheRead: 1, cacheWrite: 2, reasoning: 2 }));
    // Rounded to 1e-12: 0.1 + 0.2 style float noise never shows; an upstream cost on either turn is kept.
    expect(spend.cost).toEqual(cost(0.7, 0.4, 0.3, 0.5));
  });

  test("totalCost adds the plugins' charges to the turns' cost", () => {
    const spend = new Spend();
    spend.addTurn(usageOf(1, 1), cost(0.1, 0.05, 0.05));
    spend.charges.push({ amount: 0.2, description: "web search", source: "web" }, { amount: 0.0001, description: "moderation", source: "mod" });
    expect(spend.charged()).toBe(0.2001);
    expect(spend.totalCost()).toEqual(cost(0.3001, 0.05, 0.05));
  });

  test("totalCost with a live cost (a turn still streaming): alone, or on top of the finished turns", () => {
    const live = cost(0.02, 0.01, 0.01);
    const fresh = new Spend();
    expect(fresh.totalCost(live)).toEqual(live);
    fresh.charges.push({ amount: 0.5, description: "x", source: "p" });
    expect(fresh.totalCost(live)).toEqual(cost(0.52, 0.01, 0.01));

    const spend = new Spend();
    spend.addTurn(usageOf(1, 1), cost(0.1, 0.05, 0.05));
    expect(spend.totalCost(live)).toEqual(cost(0.12, 0.06, 0.06));
    // The live cost is not added to the spend itself.
    expect(spend.cost).toEqual(cost(0.1, 0.05, 0.05));
  });

  test("only charges: the total is the charges", () => {
    const spend = new Spend();
    spend.charges.push({ amount: 0.25, description: "x", source: "p" });
    expect(spend.totalCost()).toEqual(cost(0.25, 0, 0));
  });

  test("isCompound: one turn is its own bill; several turns (started or finished) or any charge are not", () => {
    const one = new Spend();
    one.turns = 1;
    one.addTurn(usageOf(1, 1), cost(0.1, 0.05, 0.05));
    expect(one.isCompound()).toBe(false);

    const started = new Spend();
    started.turns = 2;
    expect(started.isCompound()).toBe(true);

    const finished = new Spend();
    finished.addTurn(usageOf(1, 1), cost(0.1, 0.05, 0.05));
    finished.addTurn(usageOf(1, 1), cost(0.1, 0.05, 0.05));
    expect(finished.isCompound()).toBe(true);

    const charged = new Spend();
    charged.charges.push({ amount: 0, description: "free", source: "p" });
    expect(charged.isCompound()).toBe(true);
  });

  test("failed records how a turn that produced nothing ended", () => {
    const spend = new Spend();
    spend.failed(503, "provider_unavailable");
    expect([spend.finish, spend.status, spend.errorType, spend.settledTurns]).toEqual(["error", 503, "provider_unavailable", 0]);
  });
});
