/** core/pipeline/turn/route.ts: the routing step of a model turn. */
import { describe, expect, test } from "bun:test";
import { GatewayError } from "../../../../core/errors.ts";
import { routeTurn } from "../../../../core/pipeline/turn/route.ts";
import { Catalog } from "../../../../core/routing/catalog.ts";
import { profileOf } from "../../../../core/routing/profile.ts";
import { stickyKey } from "../../../../core/routing/sticky.ts";
import { canonicalRequest, endpointOf, modelConfig, providerConfig, testContext, testDeps } from "../helpers.ts";

function catalogWith(): Catalog {
  const catalog = new Catalog();
  const a = modelConfig("acme/a");
  const cheapA = modelConfig("acme/a", { prompt: 0.0000001, completion: 0.0000001 });
  const b = modelConfig("acme/b");
  catalog.add(endpointOf(a, providerConfig("pricey", [a])));
  catalog.add(endpointOf(cheapA, providerConfig("cheap", [cheapA])));
  catalog.add(endpointOf(b, providerConfig("pricey", [b])));
  return catalog;
}

const route = (ctx: ReturnType<typeof testContext>) => ctx.candidates.map((c) => `${c.model.id}@${c.provider.id}`);

describe("routeTurn", () => {
  test("lists the model's endpoints cheapest first, then the fallback models' endpoints", async () => {
    const ctx = testContext({ deps: testDeps({ catalog: catalogWith() }), request: canonicalRequest({ model: "acme/a", models: ["acme/b"] }) });
    const routed = await routeTurn(ctx, ctx.request);
    expect(route(ctx)).toEqual(["acme/a@cheap", "acme/a@pricey", "acme/b@pricey"]);
    expect(routed.candidates).toBe(ctx.candidates);
    expect(routed.state).toBe(ctx.route!);
    expect(ctx.log.model).toBe("acme/a");
    expect(ctx.request.warnings).toEqual([]);
  });

  test("a model named twice is routed once", async () => {
    const ctx = testContext({ deps: testDeps({ catalog: catalogWith() }), request: canonicalRequest({ model: "acme/b", models: ["acme/b"] }) });
    await routeTurn(ctx, ctx.request);
    expect(route(ctx)).toEqual(["acme/b@pricey"]);
  });

  test("works with only `models` (no model)", async () => {
    const ctx = testContext({ deps: testDeps({ catalog: catalogWith() }), request: canonicalRequest({ model: undefined, models: ["acme/b", "acme/a"] }) });
    await routeTurn(ctx, ctx.request);
    expect(route(ctx)).toEqual(["acme/b@pricey", "acme/a@cheap", "acme/a@pricey"]);
    expect(ctx.log.model).toBe("acme/b");
  });

  test("unknown fallback models are skipped with a warning", async () => {
    const ctx = testContext({ deps: testDeps({ catalog: catalogWith() }), request: canonicalRequest({ model: "nope/x", models: ["acme/b"] }) });
    await routeTurn(ctx, ctx.request);
    expect(route(ctx)).toEqual(["acme/b@pricey"]);
    expect(ctx.request.warnings).toEqual([{ code: "unknown_model", field: "models", message: "Skipped unknown models: nope/x" }]);
  });

  test("no known model is a 400 naming the models, with availability metadata", async () => {
    const ctx = testContext({ deps: testDeps({ catalog: catalogWith() }), request: canonicalRequest({ model: "nope/x", models: ["nope/y"] }) });
    const error = (await routeTurn(ctx, ctx.request).catch((e: unknown) => e)) as GatewayError;
    expect(error).toBeInstanceOf(GatewayError);
    expect([error.status, error.type]).toEqual([400, "invalid_request"]);
    expect(error.message).toBe('Model "nope/x", "nope/y" is not available on this gateway');
    expect(error.metadata).toEqual({ availability: { code: "model_not_found", retryable: false, requested_models: ["nope/x", "nope/y"] } });
    expect(ctx.candidates).toEqual([]);
  });

  test("no model at all is a 400", async () => {
    const ctx = testContext({ deps: testDeps({ catalog: catalogWith() }), request: canonicalRequest({ model: undefined, models: [""] }) });
    await expect(routeTurn(ctx, ctx.request)).rejects.toThrow("model is required");
  });

  test("routing does not reorder the catalog's own endpoint list", async () => {
    const catalog = catalogWith();
    const before = catalog.get("acme/a")!.endpoints.map((e) => e.provider.id);
    const ctx = testContext({ deps: testDeps({ catalog }) });
    await routeTurn(ctx, ctx.request);
    expect(catalog.get("acme/a")!.endpoints.map((e) => e.provider.id)).toEqual(before);
  });
});

describe("routeTurn: preferences, stickiness and the route state", () => {
  test("an unknown provider preference is a 400 naming it, before anything is planned", async () => {
    const ctx = testContext({ deps: testDeps({ catalog: catalogWith() }), request: canonicalRequest({ provider: { sort: "price", fastest: true } }) });
    const error = (await routeTurn(ctx, ctx.request).catch((e: unknown) => e)) as GatewayError;
    expect([error.status, error.type]).toEqual([400, "invalid_request"]);
    expect(error.message).toContain("provider");
    expect(ctx.candidates).toEqual([]);
  });

  test("preferences shape the candidates and the exclusions are kept for service_metadata", async () => {
    const ctx = testContext({ deps: testDeps({ catalog: catalogWith() }), request: canonicalRequest({ provider: { ignore: ["cheap"] } }) });
    await routeTurn(ctx, ctx.request);
    expect(route(ctx)).toEqual(["acme/a@pricey"]);
    expect(ctx.route?.excluded.map((e) => [e.endpoint.provider.id, e.reason])).toEqual([["cheap", "provider.ignore"]]);
  });

  test("a session pinned to a provider puts it first; the pin is read once from the kv", async () => {
    const deps = testDeps({ catalog: catalogWith() });
    await deps.kv.set(stickyKey("a".repeat(64), "acme/a", "sess-1"), "pricey");
    const ctx = testContext({ deps, request: canonicalRequest({ sessionId: "sess-1" }) });
    await routeTurn(ctx, ctx.request);
    expect(route(ctx)).toEqual(["acme/a@pricey", "acme/a@cheap"]);
    expect(ctx.route?.sticky).toEqual({ key: stickyKey("a".repeat(64), "acme/a", "sess-1"), model: "acme/a", pinned: "pricey" });
  });

  test("every candidate cooling down: they are still tried, last resort first to come back", async () => {
    const deps = testDeps({ catalog: catalogWith() });
    const [pricey, cheap] = deps.catalog.get("acme/a")!.endpoints;
    for (const endpoint of [cheap!, pricey!]) {
      for (let i = 0; i < 3; i++) deps.routing.health.recordFailure(profileOf(endpoint).key, new GatewayError("provider_unavailable", "down", { retryable: true }));
      deps.clock.advance(1_000);
    }
    const ctx = testContext({ deps });
    await routeTurn(ctx, ctx.request);
    expect(route(ctx)).toEqual(["acme/a@cheap", "acme/a@pricey"]);
    expect(ctx.route?.cooling.size).toBe(2);
  });
});
