/** core/http/service-metadata.ts: the opt-in header and the routing metadata object. */
import { describe, expect, test } from "bun:test";
import { serviceMetadataOf, wantsMetadata } from "../../../core/http/service-metadata.ts";
import { canonicalRequest, endpointOf, modelConfig, providerConfig, testContext } from "../pipeline/helpers.ts";

describe("wantsMetadata", () => {
  test("X-Service-Metadata: enabled (any case, trimmed), or the legacy header", () => {
    expect(wantsMetadata(new Headers({ "x-service-metadata": "enabled" }))).toBe(true);
    expect(wantsMetadata(new Headers({ "X-Service-Metadata": " Enabled " }))).toBe(true);
    expect(wantsMetadata(new Headers({ "x-service-experimental-metadata": "enabled" }))).toBe(true);
  });

  test("anything else is off", () => {
    expect(wantsMetadata(new Headers())).toBe(false);
    expect(wantsMetadata(new Headers({ "x-service-metadata": "true" }))).toBe(false);
    expect(wantsMetadata(new Headers({ "x-service-metadata": "disabled", "x-service-experimental-metadata": "enabled" }))).toBe(false);
  });
});

describe("serviceMetadataOf", () => {
  const a = modelConfig("acme/a");
  const b = modelConfig("acme/b");
  const onP1 = endpointOf(a, providerConfig("p1", [a]));
  const onP2 = endpointOf(a, providerConfig("p2", [a]));
  const bOnP1 = endpointOf(b, providerConfig("p1", [b]));

  test("a direct success", () => {
    const ctx = testContext();
    ctx.candidates = [onP1, onP2];
    ctx.served = onP1;
    ctx.attempts = [{ model: "acme/a", providerId: "p1", startedAt: ctx.startedAt, status: 200 }];
    ctx.deps.clock.advance(42);
    expect(serviceMetadataOf(ctx)).toEqual({
      attempt: 1,
      endpoints: {
        available: [
          { model: "acme/a", provider: "p1", selected: true },
          { model: "acme/a", provider: "p2", selected: false },
        ],
        total: 2,
      },
      generation_time: 42,
      is_byok: false,
      region: "local",
      requested: "acme/a",
      strategy: "direct",
      summary: "Routed to p1 for acme/a",
      attempts: [{ model: "acme/a", provider: "p1", status: 200, error_type: null }],
    });
  });

  test("a fallback after a failed attempt", () => {
    const ctx = testContext();
    ctx.candidates = [onP1, onP2];
    ctx.served = onP2;
    ctx.attempts = [
      { model: "acme/a", providerId: "p1", startedAt: 0, status: 502, errorType: "provider_unavailable" },
      { model: "acme/a", providerId: "p2", startedAt: 0, status: 200 },
    ];
    const metadata = serviceMetadataOf(ctx);
    expect(metadata).toMatchObject({ attempt: 2, strategy: "fallback", summary: "Fell back after 1 failed attempt(s) to p2 for acme/a" });
    expect(metadata.attempts).toEqual([
      { model: "acme/a", provider: "p1", status: 502, error_type: "provider_unavailable" },
      { model: "acme/a", provider: "p2", status: 200, error_type: null },
    ]);
  });

  test("served by a fallback model is a fallback even in one attempt", () => {
    const ctx = testContext({ request: canonicalRequest({ model: "acme/a", models: ["acme/b"] }) });
    ctx.candidates = [bOnP1];
    ctx.served = bOnP1;
    ctx.attempts = [{ model: "acme/b", providerId: "p1", startedAt: 0, status: 200 }];
    expect(serviceMetadataOf(ctx)).toMatchObject({ strategy: "fallback", requested: "acme/a" });
  });

  test("a request with only `models`, served by the first of them, is direct", () => {
    const ctx = testContext({ request: canonicalRequest({ model: undefined, models: ["acme/a", "acme/b"] }) });
    ctx.candidates = [onP1, bOnP1];
    ctx.served = onP1;
    ctx.attempts = [{ model: "acme/a", providerId: "p1", startedAt: 0, status: 200 }];
    expect(serviceMetadataOf(ctx)).toMatchObject({ requested: "acme/a", strategy: "direct", summary: "Routed to p1 for acme/a" });
  });

  test("nothing served: the summary says so; warnings and plugin pipeline entries are included when present", () => {
    const ctx = testContext({ request: canonicalRequest({ warnings: [{ code: "unknown_field", field: "x", message: "ignored x" }] }) });
    ctx.candidates = [onP1];
    ctx.attempts = [{ model: "acme/a", providerId: "p1", startedAt: 0, status: 503, errorType: "provider_unavailable" }];
    ctx.pipeline.push({ type: "plugin", name: "shout" });
    const metadata = serviceMetadataOf(ctx);
    expect(metadata.summary).toBe("No endpoint served the request after 1 attempt(s)");
    expect(metadata.endpoints).toEqual({ available: [{ model: "acme/a", provider: "p1", selected: false }], total: 1 });
    expect(metadata.warnings).toEqual([{ code: "unknown_field", field: "x", message: "ignored x" }]);
    expect(metadata.pipeline).toEqual([{ type: "plugin", name: "shout" }]);
  });

  test("several successful turns (an agent loop, a plugin's panel) are no fallback", () => {
    const ctx = testContext();
    ctx.candidates = [onP1];
    ctx.served = onP1;
    ctx.attempts = [
      { model: "acme/a", providerId: "p1", startedAt: 0, status: 200 },
      { model: "acme/a", providerId: "p1", startedAt: 0, status: 200 },
    ];
    expect(serviceMetadataOf(ctx)).toMatchObject({ attempt: 2, strategy: "direct", summary: "Routed to p1 for acme/a" });
  });

  test("a plugin that chose the model names the strategy, the model id asked for (a router's) and why", () => {
    const ctx = testContext();
    ctx.candidates = [onP1];
    ctx.served = onP1;
    ctx.attempts = [{ model: "acme/a", providerId: "p1", startedAt: 0, status: 200 }];
    ctx.pipeline.push({ type: "plugin", name: "auto-router", strategy: "auto", requested: "service/auto", summary: "auto-router chose acme/a: task coding" });
    expect(serviceMetadataOf(ctx)).toMatchObject({ strategy: "auto", requested: "service/auto", summary: "auto-router chose acme/a: task coding; Routed to p1 for acme/a" });
    ctx.pipeline.push({ type: "plugin", name: "fusion", strategy: "fusion", summary: "fusion: 2 draft(s)" });
    expect(serviceMetadataOf(ctx)).toMatchObject({ strategy: "fusion", requested: "service/auto", summary: "fusion: 2 draft(s); Routed to p1 for acme/a" });
  });

  test("no warnings and no pipeline entries: the keys are absent", () => {
    const metadata = serviceMetadataOf(testContext());
    expect(metadata).not.toHaveProperty("warnings");
    expect(metadata).not.toHaveProperty("pipeline");
    expect(metadata.attempt).toBe(0);
  });
});
