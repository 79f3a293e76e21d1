/** core/routing/plan.ts (+ filter.ts, endpoint-order.ts, availability.ts): every provider preference, tiers, stickiness, balance. */
import { describe, expect, test } from "bun:test";
import type { ModelConfig } from "../../../core/config/types.ts";
import { foldRoute } from "../../../core/formats/shared/route.ts";
import { GatewayError } from "../../../core/errors.ts";
import type { CanonicalRequest } from "../../../core/model/request.ts";
import type { CatalogModel, Endpoint } from "../../../core/routing/catalog.ts";
import type { BreakerState } from "../../../core/routing/health.ts";
import { planRoute, type PlanInput } from "../../../core/routing/plan.ts";
import { preferencesOf } from "../../../core/routing/preferences.ts";
import { profileOf } from "../../../core/routing/profile.ts";
import type { Percentiles } from "../../../core/routing/stats.ts";
import { canonicalRequest, endpointOf, modelConfig, providerConfig } from "../pipeline/helpers.ts";

/** An endpoint of `model` on `provider` with a unit price and model-config overrides. */
function ep(model: string, provider: string, price: number, extra: Partial<ModelConfig> = {}): Endpoint {
  const config = { ...modelConfig(model, { prompt: price / 2, completion: price / 2 }), ...extra };
  return endpointOf(config, providerConfig(provider, [config]));
}

const a1 = ep("m/a", "cheap", 1e-6);
const a2 = ep("m/a", "mid", 2e-6);
const a3 = ep("m/a", "dear", 4e-6);
const b1 = ep("m/b", "cheap", 1e-6);
const modelA: CatalogModel = { id: "m/a", endpoints: [a3, a1, a2] };
const modelB: CatalogModel = { id: "m/b", endpoints: [b1] };

const stats = (latency: Record<string, number> = {}, throughput: Record<string, number> = {}) => {
  const p = (v: number | undefined): Percentiles | undefined => (v === undefined ? undefined : { p50: v, p75: v * 1.2, p90: v * 1.5, p99: v * 2 });
  const providerOf = (key: string) => key.split("|")[0]!;
  return { latency: (key: string) => p(latency[providerOf(key)]), throughput: (key: string) => p(throughput[providerOf(key)]) };
};

function plan(request: Partial<CanonicalRequest>, extra: Partial<PlanInput> = {}, models: CatalogModel[] = [modelA]) {
  const req = canonicalRequest({ model: "m/a", ...request });
  return planRoute({
    request: req,
    preferences: preferencesOf(req),
    models,
    requested: models.map((m) => m.id),
    breaker: () => "closed",
    cooldownUntil: () => 0,
    stats: stats(),
    random: () => 0.5,
    pinned: undefined,
    now: 0,
    ...extra,
  });
}
const names = (p: ReturnType<typeof plan>) => p.candidates.map((c) => `${c.model.id}@${c.provider.id}`);
const rejection = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    return error as GatewayError;
  }
  throw new Error("expected a throw");
};

describe("default balancing", () => {
  test("weight ∝ 1/price²: the cheapest endpoint is first about 16/21 of the time, the dearest about 1/21", () => {
    let seed = 7;
    const random = () => ((seed = (seed * 48271) % 2147483647) / 2147483647);
    const firsts = new Map<string, number>();
    for (let i = 0; i < 4000; i++) {
      const first = plan({}, { random }).candidates[0]!.provider.id;
      firsts.set(first, (firsts.get(first) ?? 0) + 1);
    }
    expect(firsts.get("cheap")! / 4000).toBeCloseTo(16 / 21, 1);
    expect(firsts.get("mid")! / 4000).toBeCloseTo(4 / 21, 1);
    expect(firsts.get("dear")! / 4000).toBeLessThan(0.09);
  });

  test("the fallback models follow, each model in its own partition", () => {
    expect(names(plan({ models: ["m/b"] }, {}, [modelA, modelB]))).toEqual(["m/a@cheap", "m/a@mid", "m/a@dear", "m/b@cheap"]);
  });

  test("a sticky session's provider goes first; explicit sorts win over it", () => {
    expect(names(plan({}, { pinned: "dear" }))[0]).toBe("m/a@dear");
    expect(names(plan({ provider: { sort: "price" } }, { pinned: "dear" }))[0]).toBe("m/a@cheap");
  });
});

describe("hard constraints", () => {
  test("only / ignore / order / allow_fallbacks", () => {
    expect(names(plan({ provider: { only: ["mid", "dear"] } }))).toEqual(["m/a@mid", "m/a@dear"]);
    expect(names(plan({ provider: { ignore: ["cheap"] } }))).toEqual(["m/a@mid", "m/a@dear"]);
    expect(names(plan({ provider: { order: ["dear", "mid"] } }))).toEqual(["m/a@dear", "m/a@mid", "m/a@cheap"]);
    expect(names(plan({ provider: { order: ["dear", "mid"], allow_fallbacks: false } }))).toEqual(["m/a@dear", "m/a@mid"]);
    expect(names(plan({ provider: { allow_fallbacks: false } }))).toEqual(["m/a@cheap"]);
  });

  test("data_collection deny, zdr and quantizations use the endpoints' declared policies", () => {
    const m: CatalogModel = {
      id: "m/a",
      endpoints: [ep("m/a", "collects", 1e-6, { dataCollection: "allow", quantization: "fp8" }), ep("m/a", "private", 2e-6, { dataCollection: "deny", zdr: true, quantization: "bf16" })],
    };
    expect(names(plan({ provider: { data_collection: "deny" } }, {}, [m]))).toEqual(["m/a@private"]);
    expect(names(plan({ provider: { zdr: true } }, {}, [m]))).toEqual(["m/a@private"]);
    expect(names(plan({ provider: { quantizations: ["fp8"] } }, {}, [m]))).toEqual(["m/a@collects"]);
    expect(names(plan({ provider: { quantizations: ["unknown"] } }, {}, [modelA])).length).toBe(3);
  });

  test("require_parameters keeps endpoints declaring every sent parameter; tools need declared tool support", () => {
    const m: CatalogModel = {
      id: "m/a",
      endpoints: [
        ep("m/a", "basic", 1e-6, { supportedParameters: ["max_tokens", "temperature"] }),
        ep("m/a", "full", 2e-6, { supportedParameters: ["max_tokens", "temperature", "tools", "tool_choice", "response_format", "structured_outputs", "seed"] }),
        ep("m/a", "undeclared", 3e-6),
      ],
    };
    const tools: CanonicalRequest["tools"] = [{ kind: "function", name: "f" }];
    expect(names(plan({ sampling: { temperature: 1, seed: 3 }, provider: { require_parameters: true } }, {}, [m]))).toEqual(["m/a@full", "m/a@undeclared"]);
    expect(names(plan({ sampling: { temperature: 1, seed: 3 } }, {}, [m]))).toEqual(["m/a@basic", "m/a@full", "m/a@undeclared"]);
    expect(names(plan({ tools }, {}, [m]))).toEqual(["m/a@full", "m/a@undeclared"]);
    const structured = plan({ output: { format: { type: "json_schema", name: "x", schema: {} } }, provider: { require_parameters: true } }, {}, [m]);
    expect(names(structured)).toEqual(["m/a@full", "m/a@undeclared"]);
    expect(structured.excluded.map((e) => [e.endpoint.provider.id, e.reason, e.detail])).toEqual([["basic", "provider.require_parameters", "basic does not support response_format, structured_outputs"]]);
  });

  test("max_price is USD per million tokens (strings accepted) and per request", () => {
    expect(names(plan({ provider: { max_price: { prompt: "1", completion: 1 } } }))).toEqual(["m/a@cheap", "m/a@mid"]);
    expect(names(plan({ provider: { max_price: { completion: 0.5 } } }))).toEqual(["m/a@cheap"]);
    const perRequest: CatalogModel = { id: "m/a", endpoints: [ep("m/a", "fee", 1e-6, { pricing: { prompt: 0, completion: 0, request: 0.01 } }), a2] };
    expect(names(plan({ provider: { max_price: { request: 0.001 } } }, {}, [perRequest]))).toEqual(["m/a@mid"]);
  });

  test("nothing left: a 404 with availability naming the constraint and the providers it excluded", () => {
    const error = rejection(() => plan({ provider: { only: ["nobody"] } }));
    expect([error.status, error.type]).toEqual([404, "not_found"]);
    expect(error.message).toContain("provider.only");
    expect(error.metadata).toEqual({
      availability: {
        code: "constraint_filtered",
        retryable: false,
        requested_models: ["m/a"],
        affected_providers: ["dear", "cheap", "mid"],
        excluded_by: ["provider.only"],
        constraint: { field: "provider.only", detail: "dear is not in provider.only" },
      },
    });
  });
});

describe("sorting and soft preferences", () => {
  const measured = stats({ cheap: 2, mid: 0.5, dear: 1 }, { cheap: 20, mid: 90, dear: 50 });

  test("sort price / throughput / latency, unmeasured endpoints last", () => {
    expect(names(plan({ provider: { sort: "price" } }))).toEqual(["m/a@cheap", "m/a@mid", "m/a@dear"]);
    expect(names(plan({ provider: { sort: "throughput" } }, { stats: measured }))).toEqual(["m/a@mid", "m/a@dear", "m/a@cheap"]);
    expect(names(plan({ provider: { sort: { by: "latency" } } }, { stats: measured }))).toEqual(["m/a@mid", "m/a@dear", "m/a@cheap"]);
    expect(names(plan({ provider: { sort: "latency" } }, { stats: stats({ dear: 1 }) }))).toEqual(["m/a@dear", "m/a@cheap", "m/a@mid"]);
  });

  test("partition none sorts across the fallback models; model (and route=fallback) keeps each model's block", () => {
    const m2: CatalogModel = { id: "m/b", endpoints: [ep("m/b", "cheapest", 0.5e-6)] };
    expect(names(plan({ models: ["m/b"], provider: { sort: { by: "price", partition: "none" } } }, {}, [modelA, m2]))[0]).toBe("m/b@cheapest");
    expect(names(plan({ models: ["m/b"], provider: { sort: "price" } }, {}, [modelA, m2]))[0]).toBe("m/a@cheap");
    expect(names(plan({ models: ["m/b"], provider: foldRoute({ sort: "price" }, "sort") }, {}, [modelA, m2]))[0]).toBe("m/b@cheapest");
  });

  test("preferred_max_latency / preferred_min_throughput deprioritise, never exclude", () => {
    expect(names(plan({ provider: { sort: "price", preferred_max_latency: 1 } }, { stats: measured }))).toEqual(["m/a@mid", "m/a@dear", "m/a@cheap"]);
    expect(names(plan({ provider: { sort: "price", preferred_min_throughput: { p90: 100 } } }, { stats: measured }))).toEqual(["m/a@mid", "m/a@cheap", "m/a@dear"]);
    expect(names(plan({ provider: { sort: "price", preferred_min_throughput: 1000 } }, { stats: measured }))).toEqual(["m/a@cheap", "m/a@mid", "m/a@dear"]);
  });
});

describe("service tiers", () => {
  const tiered: CatalogModel = {
    id: "m/a",
    endpoints: [ep("m/a", "plain", 1e-6), ep("m/a", "fast", 2e-6, { tiers: ["default", "priority"] }), ep("m/a", "ultra", 4e-6, { tiers: ["ultrafast"] }), ep("m/a", "flexy", 0.5e-6, { tiers: ["flex"] })],
  };
  const tiersOf = (p: ReturnType<typeof plan>) => p.candidates.map((c) => `${c.provider.id}:${p.tiers.get(c)}`);

  test("ultrafast prefers ultrafast, then priority, then default endpoints", () => {
    expect(tiersOf(plan({ serviceTier: "ultrafast" }, {}, [tiered]))).toEqual(["ultra:ultrafast", "fast:priority", "plain:default"]);
  });

  test("priority prefers endpoints declaring it and falls back to default; flex-only endpoints serve only flex", () => {
    expect(tiersOf(plan({ serviceTier: "priority" }, {}, [tiered]))).toEqual(["fast:priority", "plain:default"]);
    expect(tiersOf(plan({ serviceTier: "flex" }, {}, [tiered]))).toEqual(["flexy:flex", "plain:default", "fast:default"]);
    expect(tiersOf(plan({}, {}, [tiered]))).toEqual(["plain:default", "fast:default"]);
    expect(plan({}, {}, [tiered]).excluded.map((e) => [e.endpoint.provider.id, e.reason])).toEqual([
      ["ultra", "service_tier"],
      ["flexy", "service_tier"],
    ]);
  });
});

describe("health", () => {
  test("endpoints whose breaker is open go last, as a last resort, soonest back first", () => {
    const breaker = (key: string): BreakerState => (key.startsWith("cheap") || key.startsWith("mid") ? "open" : "closed");
    const until = (key: string) => (key.startsWith("cheap") ? 2_000 : 1_000);
    const p = plan({}, { breaker, cooldownUntil: until });
    expect(names(p)).toEqual(["m/a@dear", "m/a@mid", "m/a@cheap"]);
    expect([...p.cooling].map((e) => e.provider.id).sort()).toEqual(["cheap", "mid"]);
  });

  test("a fallback model's healthy endpoint comes before the primary model's cooling ones", () => {
    const breaker = (key: string): BreakerState => (key.endsWith("m/a") ? "open" : "closed");
    expect(names(plan({ models: ["m/b"] }, { breaker }, [modelA, modelB]))[0]).toBe("m/b@cheap");
  });

  test("profiles are computed once per endpoint", () => {
    expect(profileOf(a1)).toBe(profileOf(a1));
    expect(profileOf(a1).key).toBe("cheap|m/a");
  });
});
