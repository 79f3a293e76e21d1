/**
 * Routing through HTTP: provider preferences, capabilities from the config, service tiers, sticky sessions, model
 * fallbacks, statistics-based sorting and the routing metadata, against recording loopback upstreams.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { startFaultUpstream, type FaultUpstream } from "../support/fault-upstream.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";

type Json = Record<string, any>;

const ups: Record<string, FaultUpstream> = {};
let gw: TestGateway;

/** A seeded generator, so default balancing is random but the test is repeatable. */
function seeded(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 48271) % 2147483647) / 2147483647;
}

beforeAll(async () => {
  for (const id of ["cheap", "mid", "dear", "solo", "slow", "quick"]) ups[id] = startFaultUpstream(id);
  const model = (extra: Json, price: number) => ({ id: "m/x", upstream_model: "x", pricing: { prompt: price, completion: price }, ...extra });
  gw = await startTestGateway({
    file: {
      providers: [
        {
          id: "cheap",
          adapter: "openai",
          base_url: ups.cheap!.url,
          models: [model({ supported_parameters: ["max_tokens", "temperature"], data_collection: "allow", quantization: "fp8" }, 1e-7)],
        },
        {
          id: "mid",
          adapter: "openai",
          base_url: ups.mid!.url,
          models: [model({ supported_parameters: ["max_tokens", "temperature", "tools", "tool_choice", "seed"], data_collection: "deny", zdr: true, quantization: "bf16", tiers: ["default", "priority"] }, 2e-7)],
        },
        { id: "dear", adapter: "openai", base_url: ups.dear!.url, models: [model({ tiers: ["default", "priority", "ultrafast"] }, 4e-7)] },
        { id: "solo", adapter: "openai", base_url: ups.solo!.url, models: [{ id: "m/solo", upstream_model: "solo", pricing: { prompt: 1e-7, completion: 1e-7 } }] },
        { id: "slow", adapter: "openai", base_url: ups.slow!.url, models: [{ id: "m/lat", upstream_model: "lat", pricing: { prompt: 1e-7, completion: 1e-7 } }] },
        { id: "quick", adapter: "openai", base_url: ups.quick!.url, models: [{ id: "m/lat", upstream_model: "lat", pricing: { prompt: 2e-7, completion: 2e-7 } }] },
      ],
      routing: { max_retries: 0, first_byte_timeout_ms: 2_000, breaker: { failure_threshold: 1_000 } },
    },
    overrides: { random: seeded(42) },
  });
});

afterAll(async () => {
  await gw.close();
  for (const u of Object.values(ups)) u.stop();
});

beforeEach(() => {
  for (const u of Object.values(ups)) u.requests.length = 0;
});

const chat = async (extra: Json = {}, headers: Record<string, string> = {}) => {
  const res = await gw.request("/chat/completions", { method: "POST", headers, json: { model: "m/x", messages: [{ role: "user", content: "hi" }], ...extra } });
  return { status: res.status, body: (await res.json()) as Json };
};
const servedBy = async (extra: Json = {}) => (await chat(extra)).body.provider as string;

describe("provider preferences", () => {
  test("default balancing favours the cheapest endpoint but spreads some traffic", async () => {
    const seen = new Map<string, number>();
    for (let i = 0; i < 60; i++) {
      const p = await servedBy();
      seen.set(p, (seen.get(p) ?? 0) + 1);
    }
    expect(seen.get("cheap")!).toBeGreaterThan(35);
    expect(seen.get("cheap")!).toBeGreaterThan(seen.get("mid") ?? 0);
    expect((seen.get("mid") ?? 0) + (seen.get("dear") ?? 0)).toBeGreaterThan(0);
  });

  test("order, only, ignore, sort", async () => {
    expect(await servedBy({ provider: { order: ["dear", "mid"] } })).toBe("dear");
    expect(await servedBy({ provider: { only: ["mid"] } })).toBe("mid");
    for (let i = 0; i < 5; i++) expect(await servedBy({ provider: { ignore: ["cheap", "mid"] } })).toBe("dear");
    for (let i = 0; i < 5; i++) expect(await servedBy({ provider: { sort: "price" } })).toBe("cheap");
  });

  test("capabilities from the config: tools, require_parameters, data_collection, zdr, quantizations, max_price", async () => {
    const tools = [{ type: "function", function: { name: "f", parameters: { type: "object" } } }];
    for (let i = 0; i < 5; i++) expect(["mid", "dear"]).toContain(await servedBy({ tools, provider: { sort: "price" } }));
    expect(await servedBy({ tools, provider: { sort: "price" } })).toBe("mid");
    expect(await servedBy({ seed: 1, provider: { require_parameters: true, sort: "price" } })).toBe("mid");
    expect(await servedBy({ provider: { data_collection: "deny", sort: "price" } })).toBe("mid");
    expect(await servedBy({ provider: { zdr: true } })).toBe("mid");
    expect(await servedBy({ provider: { quantizations: ["fp8"] } })).toBe("cheap");
    expect(await servedBy({ provider: { max_price: { prompt: "0.15", completion: "0.15" } } })).toBe("cheap");
  });

  test("nothing eligible: 404 with availability naming the constraint; invalid preferences: 400", async () => {
    const none = await chat({ provider: { only: ["cheap"], zdr: true } });
    expect(none.status).toBe(404);
    expect(none.body.error.metadata.error_type).toBe("not_found");
    const availability = none.body.error.metadata.availability;
    expect(availability).toMatchObject({ code: "constraint_filtered", retryable: false, requested_models: ["m/x"], constraint: { field: "provider.zdr" } });
    expect([...availability.excluded_by].sort()).toEqual(["provider.only", "provider.zdr"]);
    const bad = await chat({ provider: { sort: "fastest" } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain("provider.sort");
    expect(Object.values(ups).every((u) => u.requests.length === 0)).toBe(true);
  });

  test("the deprecated route and provider preferences work from the Responses and Messages formats too", async () => {
    const r = await gw.request("/responses", { method: "POST", json: { model: "m/x", input: "hi", provider: { only: ["dear"] } } });
    expect(r.status).toBe(200);
    expect(ups.dear!.requests).toHaveLength(1);
    const m = await gw.request("/messages", { method: "POST", json: { model: "m/x", max_tokens: 20, messages: [{ role: "user", content: "hi" }], provider: { order: ["mid"] } } });
    expect(m.status).toBe(200);
    expect(ups.mid!.requests).toHaveLength(1);
  });
});

describe("model fallbacks", () => {
  test("models: an unknown primary is skipped with a warning; a failing model falls back to the next", async () => {
    const meta = await chat({ model: "m/none", models: ["m/solo"] }, { "X-Service-Metadata": "enabled" });
    expect(meta.body.model).toBe("m/solo");
    expect(meta.body.service_metadata.strategy).toBe("fallback");
    ups.solo!.script({ kind: "status", status: 500 });
    const fell = await chat({ model: "m/solo", models: ["m/x"], provider: { sort: "price" } });
    expect(fell.body.model).toBe("m/x");
    expect(fell.body.provider).toBe("cheap");
  });
});

describe("service tiers", () => {
  test("ultrafast prefers ultrafast endpoints; priority (fast) prefers priority; the tier used is reported", async () => {
    const ultra = await chat({ service_tier: "ultrafast" });
    expect(ultra.body.provider).toBe("dear");
    expect(ultra.body.service_tier).toBe("ultrafast");
    expect(ups.dear!.requests[0]!.body.service_tier).toBe("ultrafast");
    const fast = await chat({ service_tier: "fast", provider: { sort: "price" } });
    expect(fast.body.provider).toBe("mid");
    expect(fast.body.service_tier).toBe("priority");
    expect(ups.mid!.requests[0]!.body.service_tier).toBe("priority");
  });

  test("a tier only some endpoints offer falls back to default and says so, without forwarding the tier", async () => {
    const res = await chat({ service_tier: "priority", provider: { only: ["cheap"] } });
    expect(res.body.service_tier).toBe("default");
    expect(ups.cheap!.requests[0]!.body.service_tier).toBeUndefined();
    const responses = await gw.request("/responses", { method: "POST", json: { model: "m/x", input: "hi", service_tier: "ultrafast" } });
    expect(((await responses.json()) as Json).service_tier).toBe("ultrafast");
  });
});

describe("sticky sessions", () => {
  test("a session stays with the provider that first served it; the header works like the body field", async () => {
    const first = await servedBy({ session_id: "s-1", provider: { order: ["dear"] } });
    expect(first).toBe("dear");
    for (let i = 0; i < 8; i++) expect(await servedBy({ session_id: "s-1" })).toBe("dear");
    const viaHeader = await gw.request("/chat/completions", { method: "POST", headers: { "x-session-id": "s-1" }, json: { model: "m/x", messages: [{ role: "user", content: "hi" }] } });
    expect(((await viaHeader.json()) as Json).provider).toBe("dear");
  });

  test("a pinned provider that fails moves the session to the provider that served it instead", async () => {
    expect(await servedBy({ session_id: "s-2", provider: { order: ["mid"] } })).toBe("mid");
    ups.mid!.script({ kind: "status", status: 500 });
    const moved = await servedBy({ session_id: "s-2" });
    expect(moved).not.toBe("mid");
    for (let i = 0; i < 4; i++) expect(await servedBy({ session_id: "s-2" })).toBe(moved);
  });
});

describe("statistics and metadata", () => {
  test("sort by latency and preferred_max_latency use the measured time to first byte", async () => {
    ups.slow!.fallback = { kind: "ok", latencyMs: 150 };
    const lat = (provider: Json) => servedBy({ model: "m/lat", provider });
    for (const id of ["slow", "quick"]) {
      for (let i = 0; i < 5; i++) {
        const res = await gw.request("/chat/completions", { method: "POST", json: { model: "m/lat", stream: true, provider: { only: [id] }, messages: [{ role: "user", content: "warm" }] } });
        await res.text();
      }
    }
    expect(await lat({ sort: "price" })).toBe("slow");
    expect(await lat({ sort: "latency" })).toBe("quick");
    expect(await lat({ sort: "price", preferred_max_latency: 0.1 })).toBe("quick");
    // Soft: an unmet preference deprioritises, it never excludes.
    expect(await lat({ sort: "price", preferred_max_latency: 0.001, only: ["slow"] })).toBe("slow");
  });

  test("service_metadata: endpoints considered and selected, exclusions with reasons, attempts with latency", async () => {
    const { body } = await chat({ provider: { ignore: ["dear"], sort: "price" } }, { "X-Service-Metadata": "enabled" });
    const meta = body.service_metadata;
    expect(meta.requested).toBe("m/x");
    expect(meta.strategy).toBe("direct");
    expect(meta.summary).toBe("Routed to cheap for m/x");
    expect(meta.endpoints.available).toEqual([
      { model: "m/x", provider: "cheap", selected: true },
      { model: "m/x", provider: "mid", selected: false },
    ]);
    expect(meta.endpoints.excluded).toEqual([{ model: "m/x", provider: "dear", reason: "provider.ignore", detail: "dear is in provider.ignore" }]);
    expect(meta.attempts).toHaveLength(1);
    expect(meta.attempts[0]).toMatchObject({ provider: "cheap", status: 200, error_type: null });
    expect(typeof meta.attempts[0].latency_ms).toBe("number");
  });
});
