/** core/http/service-metadata.ts: what routing adds to `service_metadata` — exclusions, latency, tier, stickiness. */
import { expect, test } from "bun:test";
import { serviceMetadataOf } from "../../../core/http/service-metadata.ts";
import { canonicalRequest, endpointOf, modelConfig, providerConfig, testContext } from "../pipeline/helpers.ts";

const a = modelConfig("acme/a");
const p1 = endpointOf(a, providerConfig("p1", [a]));
const p2 = endpointOf(a, providerConfig("p2", [a]));

test("exclusions with reasons, per-attempt latency and tier, and a summary that names the tier and the sticky pin", () => {
  const ctx = testContext({ request: canonicalRequest({ serviceTier: "priority", sessionId: "s" }) });
  ctx.candidates = [p1];
  ctx.served = p1;
  ctx.route = {
    candidates: [p1],
    tiers: new Map([[p1, "priority"]]),
    excluded: [{ endpoint: p2, reason: "provider.ignore", detail: "p2 is in provider.ignore" }],
    cooling: new Set(),
    sticky: { key: "k", model: "acme/a", pinned: "p1" },
  };
  ctx.attempts = [{ model: "acme/a", providerId: "p1", startedAt: 100, endedAt: 142, status: 200, tier: "priority" }];
  const metadata = serviceMetadataOf(ctx);
  expect(metadata.endpoints).toEqual({
    available: [{ model: "acme/a", provider: "p1", selected: true }],
    total: 1,
    excluded: [{ model: "acme/a", provider: "p2", reason: "provider.ignore", detail: "p2 is in provider.ignore" }],
  });
  expect(metadata.attempts).toEqual([{ model: "acme/a", provider: "p1", status: 200, error_type: null, latency_ms: 42, service_tier: "priority" }]);
  expect(metadata.summary).toBe("Routed to p1 for acme/a at the priority tier (sticky session)");
});

test("a fallback model served at the first attempt says why; no attempt at all says no provider was reached", () => {
  const b = modelConfig("acme/b");
  const onB = endpointOf(b, providerConfig("p1", [b]));
  const ctx = testContext({ request: canonicalRequest({ model: "acme/a", models: ["acme/b"] }) });
  ctx.candidates = [onB];
  ctx.served = onB;
  ctx.attempts = [{ model: "acme/b", providerId: "p1", startedAt: 0, status: 200 }];
  expect(serviceMetadataOf(ctx).summary).toBe("Fell back to p1 for acme/b (acme/a had no eligible endpoint)");
  expect(serviceMetadataOf(testContext()).summary).toBe("No provider was reached");
});
