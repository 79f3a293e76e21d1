/** core/pipeline/stages/routing.ts */
import { describe, expect, test } from "bun:test";
import { GatewayError } from "../../../../core/errors.ts";
import { routingStage } from "../../../../core/pipeline/stages/routing.ts";
import { Catalog } from "../../../../core/routing/catalog.ts";
import { canonicalRequest, endpointOf, modelConfig, providerConfig, stubNext, testContext, testDeps } from "../helpers.ts";

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

describe("routing stage", () => {
  test("lists the model's endpoints cheapest first, then the fallback models' endpoints", async () => {
    const ctx = testContext({ deps: testDeps({ catalog: catalogWith() }), request: canonicalRequest({ model: "acme/a", models: ["acme/b"] }) });
    const next = stubNext();
    await routingStage.run(ctx, next);
    expect(route(ctx)).toEqual(["acme/a@cheap", "acme/a@pricey", "acme/b@pricey"]);
    expect(ctx.log.model).toBe("acme/a");
    expect(next.calls).toBe(1);
    expect(ctx.request.warnings).toEqual([]);
  });

  test("a model named twice is routed once", async () => {
    const ctx = testContext({ deps: testDeps({ catalog: catalogWith() }), request: canonicalRequest({ model: "acme/b", models: ["acme/b"] }) });
    await routingStage.run(ctx, stubNext());
    expect(route(ctx)).toEqual(["acme/b@pricey"]);
  });

  test("works with only `models` (no model)", async () => {
    const ctx = testContext({ deps: testDeps({ catalog: catalogWith() }), request: canonicalRequest({ model: undefined, models: ["acme/b", "acme/a"] }) });
    await routingStage.run(ctx, stubNext());
    expect(route(ctx)).toEqual(["acme/b@pricey", "acme/a@cheap", "acme/a@pricey"]);
    expect(ctx.log.model).toBe("acme/b");
  });

  test("unknown fallback models are skipped with a warning", async () => {
    const ctx = testContext({ deps: testDeps({ catalog: catalogWith() }), request: canonicalRequest({ model: "nope/x", models: ["acme/b"] }) });
    await routingStage.run(ctx, stubNext());
    expect(route(ctx)).toEqual(["acme/b@pricey"]);
    expect(ctx.request.warnings).toEqual([{ code: "unknown_model", field: "models", message: "Skipped unknown models: nope/x" }]);
  });

  test("no known model is a 400 naming the models, with availability metadata", async () => {
    const ctx = testContext({ deps: testDeps({ catalog: catalogWith() }), request: canonicalRequest({ model: "nope/x", models: ["nope/y"] }) });
    const next = stubNext();
    const error = (await routingStage.run(ctx, next).catch((e: unknown) => e)) as GatewayError;
    expect(error).toBeInstanceOf(GatewayError);
    expect([error.status, error.type]).toEqual([400, "invalid_request"]);
    expect(error.message).toBe('Model "nope/x", "nope/y" is not available on this gateway');
    expect(error.metadata).toEqual({ availability: { code: "model_not_found", retryable: false, requested_models: ["nope/x", "nope/y"] } });
    expect(next.calls).toBe(0);
  });

  test("no model at all is a 400", async () => {
    const ctx = testContext({ deps: testDeps({ catalog: catalogWith() }), request: canonicalRequest({ model: undefined, models: [""] }) });
    await expect(routingStage.run(ctx, stubNext())).rejects.toThrow("model is required");
  });

  test("routing does not reorder the catalog's own endpoint list", async () => {
    const catalog = catalogWith();
    const before = catalog.get("acme/a")!.endpoints.map((e) => e.provider.id);
    await routingStage.run(testContext({ deps: testDeps({ catalog }) }), stubNext());
    expect(catalog.get("acme/a")!.endpoints.map((e) => e.provider.id)).toEqual(before);
  });
});
