/** core/pipeline/plugins/active.ts: which plugins run, and what their hook context can do (charge, route, report). */
import { describe, expect, test } from "bun:test";
import { GatewayError } from "../../../../core/errors.ts";
import type { CreditHold } from "../../../../core/limits/credits.ts";
import { resolvePlugins } from "../../../../core/pipeline/plugins/active.ts";
import { definePlugin } from "../../../../core/registry/define.ts";
import { Registry } from "../../../../core/registry/registry.ts";
import { Catalog } from "../../../../core/routing/catalog.ts";
import { canonicalRequest, endpointOf, modelConfig, openBill, providerConfig, testContext, testDeps } from "../helpers.ts";

function ctxWithPlugin(catalog = new Catalog()) {
  const registry = new Registry();
  registry.register(definePlugin({ id: "p", description: "", hooks: {} }), "test plugin p");
  return testContext({ deps: testDeps({ registry, catalog }), request: canonicalRequest({ plugins: [{ id: "p" }] }) });
}

function holdGranting(grant: boolean): CreditHold & { extended: number[] } {
  const extended: number[] = [];
  return { extended, amount: 1, extend: async (extra) => (extended.push(extra), grant), commit: async () => {}, release: async () => {} };
}

describe("the hook context", () => {
  test("charge() adds priced work to the request's bill (rounded USD), which accounting bills", async () => {
    const ctx = ctxWithPlugin();
    const [active] = resolvePlugins(ctx);
    await active!.contextFor(ctx.request).charge(0.1 + 0.2, "two searches");
    expect(ctx.bill.charges).toEqual([{ amount: 0.3, description: "two searches", source: `plugin "p"` }]);
    expect(ctx.bill.compound).toBe(true);
  });

  test("on a key with a credit hold the amount is held first; when it does not fit, a 402 and nothing is added", async () => {
    const ctx = ctxWithPlugin();
    const [active] = resolvePlugins(ctx);
    const granted = holdGranting(true);
    openBill(ctx, granted);
    await active!.contextFor(ctx.request).charge(0.5, "search");
    expect(granted.extended).toEqual([0.5]);

    const refused = holdGranting(false);
    // A second hold beside it (a guardrail budget's) that refuses: the charge must fit every hold.
    openBill(ctx, refused);
    const error = (await active!.contextFor(ctx.request).charge(2, "big job").catch((e: unknown) => e)) as GatewayError;
    expect(error).toBeInstanceOf(GatewayError);
    expect([error.status, error.type]).toEqual([402, "payment_required"]);
    expect(error.metadata).toMatchObject({ plugin: "p", amount: 2 });
    expect(ctx.bill.charges.map((c) => c.amount)).toEqual([0.5]);
  });

  test("a negative or non-finite amount is a programming error (TypeError), never billed", async () => {
    const ctx = ctxWithPlugin();
    const [active] = resolvePlugins(ctx);
    const hook = active!.contextFor(ctx.request);
    await expect(hook.charge(-1, "refund?")).rejects.toBeInstanceOf(TypeError);
    await expect(hook.charge(Number.NaN, "oops")).rejects.toBeInstanceOf(TypeError);
    expect(ctx.bill.charges).toEqual([]);
  });

  test("route() shows the turn's candidates as endpoint views (no credentials), without calling anything", async () => {
    const model = modelConfig("acme/a");
    const catalog = new Catalog();
    catalog.add(endpointOf(model, providerConfig("p1", [model])));
    const ctx = ctxWithPlugin(catalog);
    ctx.plugins = resolvePlugins(ctx);
    const decision = await ctx.plugins[0]!.contextFor(ctx.request).route(ctx.request);
    expect(decision.endpoints.map((e) => [e.model, e.provider, e.health])).toEqual([["acme/a", "p1", "closed"]]);
    expect(JSON.stringify(decision)).not.toContain("apiKey");
    expect(Object.isFrozen(decision)).toBe(true);
    expect(ctx.attempts).toEqual([]);
  });
});
