/** core/pipeline/stages/limits.ts: rate limits fail open, credits fail closed, reservations are released. */
import { describe, expect, test } from "bun:test";
import { DEFAULT_LIMITS } from "../../../../core/config/routing-limits.ts";
import { GatewayError } from "../../../../core/errors.ts";
import type { Kv } from "../../../../core/kv/kv.ts";
import { createMemoryKv } from "../../../../core/kv/memory.ts";
import { CreditLedger } from "../../../../core/limits/credits.ts";
import { responseOutcome, streamOutcome } from "../../../../core/pipeline/outcome.ts";
import { closeBill } from "../../../../core/accounting/close-bill.ts";
import { limitsStage } from "../../../../core/pipeline/stages/limits.ts";
import { Catalog } from "../../../../core/routing/catalog.ts";
import type { ApiKeyRecord, Store } from "../../../../core/store/types.ts";
import {
  canonicalRequest,
  endpointOf,
  inferencePrincipal,
  modelConfig,
  providerConfig,
  replay,
  response,
  stubNext,
  testConfig,
  testContext,
  testDeps,
  type TestDeps,
} from "../helpers.ts";

const model = { ...modelConfig("acme/a", { prompt: 1e-6, completion: 1e-5 }), maxOutputTokens: 1000 };
const unbounded = modelConfig("acme/u", { prompt: 1e-6, completion: 1e-5 });
const store = { generations: { costSince: async () => 0 }, keys: { findByHash: async () => undefined }, workspaces: { get: async () => undefined, budgets: async () => [] }, byok: { all: async () => [] } } as unknown as Store;

function depsWith(kv: Kv, limits = DEFAULT_LIMITS): TestDeps {
  const catalog = new Catalog();
  catalog.add(endpointOf(model, providerConfig("p", [model])));
  catalog.add(endpointOf(unbounded, providerConfig("p", [unbounded])));
  const base = testDeps({ catalog, kv, store, config: testConfig({ limits }) });
  return { ...base, credits: new CreditLedger(kv, store, base.ledger, base.clock, base.logger, limits) };
}

let requests = 0;
/** A request context of its own (the reservation id is the generation id, unique per request). */
function ctxFor(deps: TestDeps, record: Partial<ApiKeyRecord>, request = canonicalRequest({ model: "acme/a", maxTokens: 100 })) {
  const principal = { ...inferencePrincipal, record: { ...inferencePrincipal.record!, ...record } };
  return testContext({ deps, request, principal, generationId: `gen-${++requests}` });
}

const failingKv = (): Kv => {
  const kv = createMemoryKv();
  const fail = () => Promise.reject(new Error("ECONNREFUSED"));
  return { ...kv, get: fail, rateLimit: fail, reserve: fail, setIfAbsent: fail };
};

describe("limits stage", () => {
  test("no limit and no rate limit: straight through, no reservation", async () => {
    const ctx = ctxFor(depsWith(createMemoryKv()), {});
    const next = stubNext();
    await limitsStage.run(ctx, next);
    expect(next.calls).toBe(1);
    expect(ctx.bill.held).toBeUndefined();
  });

  test("a limit: the worst case is reserved before next() and released on the way out", async () => {
    const deps = depsWith(createMemoryKv());
    const ctx = ctxFor(deps, { limit: 1, limitReset: "daily" });
    let heldDuring = 0;
    await limitsStage.run(ctx, async () => {
      heldDuring = ctx.bill.held!;
      // A second request that needs more than what is left is refused while this one holds its reservation.
      const other = ctxFor(deps, { limit: 1, limitReset: "daily" }, canonicalRequest({ model: "acme/a", maxTokens: 99_950 }));
      const error = (await limitsStage.run(other, stubNext()).catch((e: unknown) => e)) as GatewayError;
      expect([error.status, error.type]).toEqual([402, "payment_required"]);
      expect(error.message).toContain("can only afford");
      return responseOutcome(response());
    });
    // "hi" is 2 bytes; system + 1 message at 8 tokens each; 100 output tokens at the completion price.
    expect(heldDuring).toBeCloseTo((2 + 2 * 8) * 1e-6 + 100 * 1e-5, 12);
    const after = ctxFor(deps, { limit: 1, limitReset: "daily" }, canonicalRequest({ model: "acme/a", maxTokens: 99_000 }));
    await limitsStage.run(after, stubNext());
  });

  test("a stream keeps its reservation until accounting settles it at the end", async () => {
    const deps = depsWith(createMemoryKv());
    const ctx = ctxFor(deps, { limit: 0.002, limitReset: "daily" });
    await limitsStage.run(ctx, async () => streamOutcome(replay([])));
    const other = ctxFor(deps, { limit: 0.002, limitReset: "daily" });
    expect(((await limitsStage.run(other, stubNext()).catch((e: unknown) => e)) as GatewayError).status).toBe(402);
    await closeBill(ctx);
    await limitsStage.run(other, stubNext());
  });

  test("an inner failure releases the reservation and is rethrown", async () => {
    const deps = depsWith(createMemoryKv());
    const ctx = ctxFor(deps, { limit: 0.002, limitReset: "daily" });
    await expect(limitsStage.run(ctx, () => Promise.reject(new Error("upstream down")))).rejects.toThrow("upstream down");
    await Bun.sleep(0);
    // The whole limit is available again to the next request.
    await limitsStage.run(ctxFor(deps, { limit: 0.002, limitReset: "daily" }), stubNext());
  });

  test("nothing bounds the output: max_tokens is capped at the default so the reservation bounds the cost", async () => {
    const ctx = ctxFor(depsWith(createMemoryKv()), { limit: 10, limitReset: null }, canonicalRequest({ model: "acme/u" }));
    await limitsStage.run(ctx, stubNext());
    expect(ctx.request.maxTokens).toBe(DEFAULT_LIMITS.defaultMaxOutputTokens);
    expect(ctx.request.warnings.map((w) => w.field)).toEqual(["max_tokens"]);
  });

  test("an exhausted limit is a 402 with the envelope's metadata", async () => {
    const ctx = ctxFor(depsWith(createMemoryKv()), { limit: 0, limitReset: "monthly" });
    const error = (await limitsStage.run(ctx, stubNext()).catch((e: unknown) => e)) as GatewayError;
    expect([error.status, error.type]).toEqual([402, "payment_required"]);
    expect(error.metadata).toMatchObject({ limit: 0, limit_remaining: 0, limit_reset: "monthly" });
  });

  test("kv unreachable: rate limits fail open with an error log, credits fail closed with 503", async () => {
    const limits = { ...DEFAULT_LIMITS, rateLimit: { requests: 1, tokens: null, intervalSeconds: 60 } };
    const deps = depsWith(failingKv(), limits);
    const next = stubNext();
    await limitsStage.run(ctxFor(deps, {}), next);
    expect(next.calls).toBe(1);
    expect(deps.logger.calls.some((c) => c.level === "error" && c.msg?.includes("failing open"))).toBe(true);
    const error = (await limitsStage.run(ctxFor(deps, { limit: 5, limitReset: null }), stubNext()).catch((e: unknown) => e)) as GatewayError;
    expect([error.status, error.retryAfter]).toEqual([503, 1]);
    expect(deps.logger.calls.some((c) => c.level === "error" && c.msg?.includes("failing closed"))).toBe(true);
  });

  test("a key's own rate limit wins over the default; a denial sets the X-RateLimit headers", async () => {
    const limits = { ...DEFAULT_LIMITS, rateLimit: { requests: 100, tokens: null, intervalSeconds: 60 } };
    const deps = depsWith(createMemoryKv(), limits);
    const own = { rateLimit: { requests: 1, tokens: null, intervalSeconds: 60 } };
    await limitsStage.run(ctxFor(deps, own), stubNext());
    const ctx = ctxFor(deps, own);
    const error = (await limitsStage.run(ctx, stubNext()).catch((e: unknown) => e)) as GatewayError;
    expect(error.status).toBe(429);
    expect(ctx.replyHeaders).toMatchObject({ "x-ratelimit-limit": "1", "x-ratelimit-remaining": "0" });
  });
});

describe("a later turn of the same request holds its own worst case (Bill.holdTurn, on the bill the limits stage opened)", () => {
  // One turn of the default request: (2 + 2 * 8) prompt tokens and 100 output tokens.
  const perTurn = (2 + 2 * 8) * 1e-6 + 100 * 1e-5;

  test("extends the request's hold by the turn's worst case before the turn runs", async () => {
    const deps = depsWith(createMemoryKv());
    const ctx = ctxFor(deps, { limit: 1, limitReset: "daily" });
    await limitsStage.run(ctx, async () => {
      const first = ctx.bill.held!;
      await ctx.bill.holdTurn(canonicalRequest({ model: "acme/a", maxTokens: 100 }));
      expect(ctx.bill.held).toBeCloseTo(first + perTurn, 12);
      return responseOutcome(response());
    });
  });

  test("a turn that does not fit in what is left is a 402 (the hold is unchanged)", async () => {
    const deps = depsWith(createMemoryKv());
    const ctx = ctxFor(deps, { limit: perTurn * 1.5, limitReset: "daily" });
    await limitsStage.run(ctx, async () => {
      const held = ctx.bill.held;
      const error = (await ctx.bill.holdTurn(canonicalRequest({ model: "acme/a", maxTokens: 100 })).catch((e: unknown) => e)) as GatewayError;
      expect([error.status, error.type]).toEqual([402, "payment_required"]);
      expect(error.message).toContain("another model turn");
      expect(error.metadata).toMatchObject({ limit: perTurn * 1.5, limit_reset: "daily", requested_tokens: 100 });
      expect(ctx.bill.held).toBe(held);
      return responseOutcome(response());
    });
  });

  test("an unbounded later turn gets max_tokens capped like the first one", async () => {
    const deps = depsWith(createMemoryKv());
    const ctx = ctxFor(deps, { limit: 10, limitReset: null });
    await limitsStage.run(ctx, async () => {
      const later = canonicalRequest({ model: "acme/u" });
      await ctx.bill.holdTurn(later);
      expect(later.maxTokens).toBe(DEFAULT_LIMITS.defaultMaxOutputTokens);
      expect(later.warnings.map((w) => w.field)).toEqual(["max_tokens"]);
      return responseOutcome(response());
    });
  });

  test("no hold (a key without a limit): nothing to extend", async () => {
    const ctx = ctxFor(depsWith(createMemoryKv()), {});
    await ctx.bill.holdTurn(canonicalRequest({ model: "acme/a", maxTokens: 100 }));
    expect(ctx.bill.held).toBeUndefined();
  });

  test("kv unreachable while extending: fails closed with 503", async () => {
    const kv = createMemoryKv();
    const deps = depsWith(kv);
    const ctx = ctxFor(deps, { limit: 1, limitReset: "daily" });
    await limitsStage.run(ctx, async () => {
      kv.reserve = () => Promise.reject(new Error("ECONNREFUSED"));
      const error = (await ctx.bill.holdTurn(canonicalRequest({ model: "acme/a", maxTokens: 100 })).catch((e: unknown) => e)) as GatewayError;
      expect([error.status, error.retryAfter]).toEqual([503, 1]);
      expect(deps.logger.calls.some((c) => c.level === "error" && c.msg?.includes("failing closed"))).toBe(true);
      return responseOutcome(response());
    });
  });
});
