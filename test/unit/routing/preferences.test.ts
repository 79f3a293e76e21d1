/** core/routing/preferences.ts, parameters.ts, tiers.ts: validation and normalisation of what the client asked for. */
import { describe, expect, test } from "bun:test";
import { GatewayError } from "../../../core/errors.ts";
import { foldRoute } from "../../../core/formats/shared/route.ts";
import { sentParameters } from "../../../core/routing/parameters.ts";
import { NO_PREFERENCES, preferencesOf } from "../../../core/routing/preferences.ts";
import { tierChain, tierFor } from "../../../core/routing/tiers.ts";
import { canonicalRequest } from "../pipeline/helpers.ts";

const prefs = (provider: Record<string, unknown> | undefined, passthrough?: Record<string, unknown>) =>
  preferencesOf(canonicalRequest({ ...(provider ? { provider } : {}), ...(passthrough ? { passthrough } : {}) }));
const rejection = (provider: Record<string, unknown>) => {
  try {
    prefs(provider);
  } catch (error) {
    return error as GatewayError;
  }
  throw new Error("expected a 400");
};

describe("provider preferences", () => {
  test("absent or all-null: the shared no-preference object", () => {
    expect(prefs(undefined)).toBe(NO_PREFERENCES);
    expect(prefs({ order: null, sort: null, max_price: null })).toMatchObject({ order: undefined, sortBy: undefined, maxPrice: undefined, allowFallbacks: true });
  });

  test("every field normalised; max_price per million tokens becomes per token", () => {
    const p = prefs({
      order: ["a", "b"],
      only: ["a", "b", "c"],
      ignore: ["d"],
      allow_fallbacks: false,
      require_parameters: true,
      data_collection: "deny",
      zdr: true,
      quantizations: ["fp8", "bf16"],
      sort: { by: "throughput", partition: "none" },
      max_price: { prompt: "2.5", completion: 10, request: 0.01 },
      preferred_max_latency: 2,
      preferred_min_throughput: { p90: 50 },
    });
    expect(p.order).toEqual(["a", "b"]);
    expect([...p.only!]).toEqual(["a", "b", "c"]);
    expect([...p.ignore!]).toEqual(["d"]);
    expect([p.allowFallbacks, p.requireParameters, p.denyDataCollection, p.zdr]).toEqual([false, true, true, true]);
    expect([...p.quantizations!]).toEqual(["fp8", "bf16"]);
    expect([p.sortBy, p.partition]).toEqual(["throughput", "none"]);
    expect(p.maxPrice!.prompt).toBeCloseTo(2.5e-6, 15);
    expect(p.maxPrice!.completion).toBeCloseTo(1e-5, 15);
    expect(p.maxPrice!.request).toBe(0.01);
    expect(p.preferredMaxLatency).toEqual({ p50: 2 });
    expect(p.preferredMinThroughput).toEqual({ p90: 50 });
  });

  test("the deprecated route, folded by the decoders: fallback → partition model, sort → none; an explicit partition wins", () => {
    expect(prefs(foldRoute(undefined, "sort")).partition).toBe("none");
    expect(prefs(foldRoute({ sort: "price" }, "fallback"))).toMatchObject({ sortBy: "price", partition: "model" });
    expect(prefs(foldRoute({ sort: { by: "price", partition: "model" } }, "sort")).partition).toBe("model");
    expect(foldRoute({ order: ["a"] }, null)).toEqual({ order: ["a"] });
  });

  test("unknown fields, wrong types and bad enums are 400s naming the field", () => {
    for (const [body, field] of [
      [{ fastest: true }, "provider"],
      [{ order: "a" }, "provider.order"],
      [{ sort: "cheapest" }, "provider.sort"],
      [{ quantizations: ["fp3"] }, "provider.quantizations"],
      [{ max_price: { prompt: "free" } }, "provider.max_price"],
      [{ max_price: { tokens: 1 } }, "provider.max_price"],
      [{ preferred_max_latency: { p42: 1 } }, "provider.preferred_max_latency"],
      [{ data_collection: "maybe" }, "provider.data_collection"],
    ] as const) {
      const error = rejection(body);
      expect([error.status, error.type]).toEqual([400, "invalid_request"]);
      expect(error.message).toContain(field);
    }
  });

  test("accepted but unavailable preferences are warned about, not silently dropped", () => {
    const request = canonicalRequest({ provider: { sort: "exacto", enforce_distillable_text: true } });
    expect(preferencesOf(request).sortBy).toBeUndefined();
    expect(request.warnings.map((w) => w.field)).toEqual(["provider.sort", "provider.enforce_distillable_text"]);
  });
});

describe("sent parameters", () => {
  test("named as endpoints declare them", () => {
    const request = canonicalRequest({
      tools: [{ kind: "function", name: "f" }],
      toolChoice: { type: "auto" },
      sampling: { temperature: 1, topP: 0.5, topK: 3, seed: 1, stop: ["x"], logprobs: true, topLogprobs: 2, frequencyPenalty: 0.1 },
      maxTokens: 10,
      output: { format: { type: "json_schema", name: "s", schema: {} }, verbosity: "low" },
      reasoning: { effort: "low" },
    });
    expect(sentParameters(request).sort()).toEqual(
      ["frequency_penalty", "logprobs", "max_tokens", "reasoning", "response_format", "seed", "stop", "structured_outputs", "temperature", "tool_choice", "tools", "top_k", "top_logprobs", "top_p", "verbosity"].sort(),
    );
    expect(sentParameters(canonicalRequest())).toEqual([]);
    expect(sentParameters(canonicalRequest({ tools: [{ kind: "server", type: "service:web_search" }] }))).toEqual([]);
  });
});

describe("tiers", () => {
  test("chains and the tier an endpoint serves at", () => {
    expect(tierChain("ultrafast")).toEqual(["ultrafast", "priority", "default"]);
    expect(tierChain(undefined)).toEqual(["default"]);
    expect(tierChain("auto")).toEqual(["default"]);
    expect(tierFor(tierChain("ultrafast"), new Set(["default", "priority"]))).toEqual({ tier: "priority", rank: 1 });
    expect(tierFor(tierChain("default"), new Set(["flex"]))).toBeUndefined();
  });
});
