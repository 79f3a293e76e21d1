/**
 * core/accounting/bill.ts: what one request spent across its turns and charges, the holds that cover it, and its
 * closing (the record first, then every hold committed once).
 */
import { describe, expect, test } from "bun:test";
import { Bill, type BillTerms } from "../../../core/accounting/bill.ts";
import { GatewayError } from "../../../core/errors.ts";
import type { CreditHold } from "../../../core/limits/credits.ts";
import type { Cost } from "../../../core/model/usage.ts";
import { canonicalRequest, usageOf } from "../pipeline/helpers.ts";

const cost = (total: number, input: number, output: number, upstream: number | null = null): Cost => ({ total, input, output, upstream });

/** A hold that grants while `room` lasts and records what happens to it. */
function fakeHold(room = Number.POSITIVE_INFINITY, amount = 1): CreditHold & { log: string[] } {
  const log: string[] = [];
  let held = amount;
  return {
    log,
    get amount() {
      return held;
    },
    extend: async (extra) => {
      if (held + extra > room) return (log.push(`refused ${extra}`), false);
      held += extra;
      log.push(`extend ${extra}`);
      return true;
    },
    commit: async (spent) => void log.push(`commit ${spent}`),
    release: async () => void log.push("release"),
  };
}

/** Terms whose every turn is worth `perTurn` USD (100 output tokens); sized for `sizedFor` (null: any model). */
function terms(perTurn: number, sizedFor: string | null = "acme/a", errors: string[] = []): BillTerms {
  return {
    worstCase: () => ({ amount: perTurn, outputTokens: 100, unbounded: false, fixedCost: 0, completionPrice: perTurn / 100 }),
    limit: 5,
    limitReset: "daily",
    sizedFor: sizedFor ?? undefined,
    logError: (_err, message) => void errors.push(message),
  };
}

const request = (model = "acme/a") => canonicalRequest({ model, maxTokens: 100 });

describe("Bill: what was spent", () => {
  test("starts empty: no usage, zero cost, nothing compound", () => {
    const bill = new Bill();
    expect(bill.usage).toEqual(usageOf(0, 0));
    expect(bill.total()).toEqual(cost(0, 0, 0));
    expect(bill.compound).toBe(false);
    expect([bill.turns, bill.finishedTurns, bill.ending.finish, bill.ending.status, bill.ending.errorType]).toEqual([0, 0, undefined, 200, undefined]);
  });

  test("turnEnded: the first turn is taken as it is, later ones are summed (usage and cost)", () => {
    const bill = new Bill();
    bill.turnEnded(usageOf(4, 3, { cacheRead: 1, reasoning: 2 }), cost(0.3, 0.1, 0.2), "stop", 200, undefined);
    expect(bill.usage).toEqual(usageOf(4, 3, { cacheRead: 1, reasoning: 2 }));
    expect(bill.turnCost).toEqual(cost(0.3, 0.1, 0.2));
    bill.turnEnded(usageOf(6, 1, { cacheWrite: 2 }), cost(0.4, 0.3, 0.1, 0.5), "stop", 200, undefined);
    expect(bill.finishedTurns).toBe(2);
    expect(bill.usage).toEqual(usageOf(10, 4, { cacheRead: 1, cacheWrite: 2, reasoning: 2 }));
    // Rounded to 1e-12: 0.1 + 0.2 style float noise never shows; an upstream cost on either turn is kept.
    expect(bill.turnCost).toEqual(cost(0.7, 0.4, 0.3, 0.5));
  });

  test("total adds the plugins' charges to the turns' cost", async () => {
    const bill = new Bill();
    bill.turnEnded(usageOf(1, 1), cost(0.1, 0.05, 0.05), "stop", 200, undefined);
    await bill.charge({ plugin: "web" }, 0.2, "web search");
    await bill.charge({ plugin: "mod" }, 0.0001, "moderation");
    expect(bill.charged()).toBe(0.2001);
    expect(bill.total()).toEqual(cost(0.3001, 0.05, 0.05));
  });

  test("total with a live cost (a turn still streaming): alone, or on top of the finished turns", async () => {
    const live = cost(0.02, 0.01, 0.01);
    const fresh = new Bill();
    expect(fresh.total(live)).toEqual(live);
    await fresh.charge({ plugin: "p" }, 0.5, "x");
    expect(fresh.total(live)).toEqual(cost(0.52, 0.01, 0.01));

    const bill = new Bill();
    bill.turnEnded(usageOf(1, 1), cost(0.1, 0.05, 0.05), "stop", 200, undefined);
    expect(bill.total(live)).toEqual(cost(0.12, 0.06, 0.06));
    // The live cost is not added to the bill itself.
    expect(bill.turnCost).toEqual(cost(0.1, 0.05, 0.05));
  });

  test("only charges: the total is the charges", async () => {
    const bill = new Bill();
    await bill.charge({ plugin: "p" }, 0.25, "x");
    expect(bill.total()).toEqual(cost(0.25, 0, 0));
  });

  test("compound: one turn is its own bill; several turns (started or finished) or any charge are not", async () => {
    const one = new Bill();
    one.turnStarts(request(), false);
    one.turnEnded(usageOf(1, 1), cost(0.1, 0.05, 0.05), "stop", 200, undefined);
    expect(one.compound).toBe(false);

    const started = new Bill();
    started.turnStarts(request(), false);
    started.turnStarts(request(), false);
    expect(started.compound).toBe(true);

    const finished = new Bill();
    finished.turnEnded(usageOf(1, 1), cost(0.1, 0.05, 0.05), "stop", 200, undefined);
    finished.turnEnded(usageOf(1, 1), cost(0.1, 0.05, 0.05), "stop", 200, undefined);
    expect(finished.compound).toBe(true);

    const charged = new Bill();
    await charged.charge({ plugin: "p" }, 0, "free");
    expect(charged.compound).toBe(true);
  });

  test("turnFailed records how a turn that produced nothing ended; the next turn's ending replaces it", () => {
    const bill = new Bill();
    bill.turnFailed(503, "provider_unavailable");
    expect([bill.ending.finish, bill.ending.status, bill.ending.errorType, bill.finishedTurns]).toEqual(["error", 503, "provider_unavailable", 0]);
    bill.turnEnded(usageOf(1, 1), cost(0.1, 0.05, 0.05), "stop", 200, undefined);
    expect(bill.ending).toEqual({ finish: "stop", status: 200, errorType: undefined });
  });

  test("a refund takes back exactly the charge it names, not an equal one", async () => {
    const bill = new Bill();
    const first = await bill.charge({ tool: "service:image_generation" }, 0.04, "image");
    await bill.charge({ tool: "service:image_generation" }, 0.04, "image");
    bill.refund(first);
    bill.refund(first);
    expect(bill.charges).toHaveLength(1);
    expect(bill.charges[0]).not.toBe(first);
  });
});

describe("Bill: holds", () => {
  test("without holds nothing is held and nothing waits: a turn, a charge, a reservation ahead", async () => {
    const bill = new Bill();
    expect(bill.turnStarts(request(), true)).toBeUndefined();
    await bill.reserveTurn(request("acme/b"));
    await bill.charge({ plugin: "p" }, 3, "big job");
    expect(bill.held).toBeUndefined();
    expect(bill.letGo()).toBeUndefined();
  });

  test("the reservation covers the request's own first turn on its model; sub-requests and later turns hold their own first", async () => {
    const hold = fakeHold();
    const bill = new Bill();
    bill.open(terms(0.25), [hold]);
    // A plugin's sub-request before the answer (a panel draft): holds its own worst case.
    await bill.turnStarts(request(), true);
    // The answer's turn: the reservation.
    expect(bill.turnStarts(request(), false)).toBeUndefined();
    // A later turn (an agent step): its own.
    await bill.turnStarts(request(), false);
    expect(hold.log).toEqual(["extend 0.25", "extend 0.25"]);
    expect(bill.turns).toBe(3);
  });

  test("an own turn on another model than the reservation's holds its own; a reservation for any model covers it", async () => {
    const sized = new Bill();
    const hold = fakeHold();
    sized.open(terms(0.25, "acme/a"), [hold]);
    await sized.turnStarts(request("acme/b"), false);
    expect(hold.log).toEqual(["extend 0.25"]);

    const routed = new Bill();
    const any = fakeHold();
    routed.open(terms(0.25, null), [any]);
    expect(routed.turnStarts(request("acme/b"), false)).toBeUndefined();
    expect(any.log).toEqual([]);
  });

  test("reserveTurn holds a later own turn's worst case now; that turn then runs on it", async () => {
    const hold = fakeHold();
    const bill = new Bill();
    bill.open(terms(0.25, "acme/a"), [hold]);
    await bill.reserveTurn(request("acme/analyst"));
    expect(hold.log).toEqual(["extend 0.25"]);
    // Sub-requests in between hold their own; the answer on the analyst holds nothing more.
    await bill.turnStarts(request("acme/b"), true);
    expect(bill.turnStarts(request("acme/analyst"), false)).toBeUndefined();
    expect(hold.log).toEqual(["extend 0.25", "extend 0.25"]);
  });

  test("a turn or a reservation the holds cannot cover is a 402 naming the limit; the kv down is a 503, logged", async () => {
    const errors: string[] = [];
    const bill = new Bill();
    bill.open(terms(0.25, "acme/a", errors), [fakeHold(1.1)]);
    const refused = (await bill.reserveTurn(request("acme/analyst")).catch((e: unknown) => e)) as GatewayError;
    expect([refused.status, refused.type]).toEqual([402, "payment_required"]);
    expect(refused.metadata).toMatchObject({ limit: 5, limit_reset: "daily", requested_tokens: 100 });
    // Not reserved: the analyst's own turn still has to hold.
    const holding = bill.turnStarts(request("acme/analyst"), false);
    expect(holding).toBeInstanceOf(Promise);
    await holding?.catch(() => undefined);

    const down = new Bill();
    down.open(terms(0.25, "acme/a", errors), [{ ...fakeHold(), extend: () => Promise.reject(new Error("ECONNREFUSED")) }]);
    const unavailable = (await down.holdTurn(request()).catch((e: unknown) => e)) as GatewayError;
    expect([unavailable.status, unavailable.retryAfter]).toEqual([503, 1]);
    expect(errors.some((m) => m.includes("failing closed"))).toBe(true);
  });

  test("a guardrail budget's holds join the key's: each grows with every turn and charge, one refusing refuses", async () => {
    const key = fakeHold();
    const budget = fakeHold(1.3);
    const bill = new Bill();
    bill.open(terms(0.25), [key]);
    bill.open(terms(99, null), [budget]);
    await bill.charge({ plugin: "p" }, 0.2, "search");
    expect([key.log, budget.log]).toEqual([["extend 0.2"], ["extend 0.2"]]);
    // The first terms stand: the answer's turn on acme/a is still the reservation's.
    expect(bill.turnStarts(request(), false)).toBeUndefined();
    const error = (await bill.charge({ plugin: "p" }, 0.2, "again").catch((e: unknown) => e)) as GatewayError;
    expect(error.status).toBe(402);
    expect(bill.charges.map((c) => c.amount)).toEqual([0.2]);
  });

  test("a discarded attempt is paid for first: the holds grow by its cost, or it is not added", async () => {
    const bill = new Bill();
    bill.open(terms(0.25), [fakeHold(1.5)]);
    expect(await bill.payForDiscarded(usageOf(2, 2), cost(0.4, 0.2, 0.2))).toBe(true);
    expect(await bill.payForDiscarded(usageOf(2, 2), cost(0.4, 0.2, 0.2))).toBe(false);
    expect([bill.discarded, bill.finishedTurns, bill.total().total, bill.compound]).toEqual([1, 1, 0.4, true]);
  });
});

describe("Bill: closing", () => {
  test("closes once: the record is written, then the budgets hear the cost, then every hold is committed with it", async () => {
    const order: string[] = [];
    const key = fakeHold();
    const budget = fakeHold();
    const bill = new Bill();
    bill.open(terms(0.25), [key]);
    bill.open(terms(0.25), [budget], (spent) => void order.push(`budgets told ${spent}`));
    bill.turnEnded(usageOf(4, 3), cost(0.3, 0.1, 0.2), "stop", 200, undefined);
    await bill.close(undefined, ({ cost: spent, ending, usage }) => void order.push(`record ${spent} ${ending.finish} ${usage.output.total}`));
    expect(order).toEqual(["record 0.3 stop 3", "budgets told 0.3"]);
    expect([key.log, budget.log]).toEqual([["commit 0.3"], ["commit 0.3"]]);
    expect(bill.close({ finish: "error", status: 500, errorType: "server" }, () => void order.push("again"))).toBeUndefined();
    expect(bill.letGo()).toBeUndefined();
    expect(order).toHaveLength(2);
    expect(bill.isClosed).toBe(true);
  });

  test("a stream that ended closes with its latest turn's ending, read before a dropped stream is abandoned and metered", async () => {
    const bill = new Bill();
    bill.turnEnded(usageOf(1, 1), cost(0.1, 0.05, 0.05), "end_turn", 200, undefined);
    // A stream a plugin dropped unread: abandoning it meters what it sent, with its own (aborted) ending.
    bill.handedOut({ abandon: () => bill.turnEnded(usageOf(1, 2), cost(0.2, 0.1, 0.1), "aborted", 499, "client_closed") });
    let closed: { cost: number; finish: string | undefined } | undefined;
    await bill.close(undefined, ({ cost: spent, ending }) => void (closed = { cost: spent, finish: ending.finish }));
    expect(closed).toEqual({ cost: 0.3, finish: "end_turn" });
    expect(bill.ending.finish).toBe("end_turn");
  });

  test("a record that cannot be written still commits the holds (the limit holds), and the failure is thrown", async () => {
    const hold = fakeHold();
    const bill = new Bill();
    bill.open(terms(0.25), [hold]);
    bill.turnEnded(usageOf(1, 1), cost(0.1, 0.05, 0.05), "stop", 200, undefined);
    expect(() =>
      bill.close(undefined, () => {
        throw new Error("ledger broke");
      }),
    ).toThrow("ledger broke");
    await Bun.sleep(0);
    expect(hold.log).toEqual(["commit 0.1"]);
  });

  test("letGo releases every hold of a bill nobody closed", async () => {
    const key = fakeHold();
    const budget = fakeHold();
    const bill = new Bill();
    bill.open(terms(0.25), [key, budget]);
    await bill.letGo();
    expect([key.log, budget.log]).toEqual([["release"], ["release"]]);
  });

  test("answeredWith: the edge's error is the ending metrics and traces read", async () => {
    const bill = new Bill();
    bill.turnEnded(usageOf(1, 1), cost(0.1, 0.05, 0.05), "stop", 200, undefined);
    await bill.close(undefined, () => {});
    bill.answeredWith(403, "permission_denied");
    expect(bill.ending).toEqual({ finish: "error", status: 403, errorType: "permission_denied" });
  });
});

describe("Bill: a price factor (a batch item's discount)", () => {
  test("amounts and costs: total, input and output scaled; the upstream's own charge untouched", () => {
    const half = new Bill(0.5);
    half.turnEnded(usageOf(1, 1), cost(0.000003, 0.000001, 0.000002), "stop", 200, undefined);
    expect(half.billed().total).toBe(0.0000015);
    expect(new Bill(0.75).priced(cost(1, 0.4, 0.6, 0.9))).toEqual(cost(0.75, 0.3, 0.45, 0.9));
    const listPrice = cost(1, 0.4, 0.6);
    expect(new Bill().priced(listPrice)).toBe(listPrice);
  });

  test("the record and every hold (the key's, a guardrail budget's) get the discounted cost; holds grow at list price", async () => {
    const hold = fakeHold(Number.POSITIVE_INFINITY, 2);
    const budget = fakeHold(Number.POSITIVE_INFINITY, 2);
    const told: number[] = [];
    const bill = new Bill(0.5);
    bill.open(terms(0.25), [hold]);
    bill.open(terms(0.25), [budget], (spent) => void told.push(spent));
    // The worst case of a turn is not discounted until it is settled.
    await bill.turnStarts(request(), true);
    bill.turnEnded(usageOf(4, 3), cost(1.2, 0.4, 0.8), "stop", 200, undefined);
    let recorded = 0;
    await bill.close(undefined, ({ cost: spent }) => void (recorded = spent));
    expect(recorded).toBe(0.6);
    expect([hold.log, budget.log, told]).toEqual([["extend 0.25", "commit 0.6"], ["extend 0.25", "commit 0.6"], [0.6]]);
    expect(bill.total().total).toBe(1.2);
  });
});
