/** core/limits/windows.ts, estimate.ts, reservation.ts: credit windows and reservation sizing. */
import { describe, expect, test } from "bun:test";
import { promptSize, promptTokenBound, promptTokenEstimate } from "../../../core/limits/estimate.ts";
import { catalogCeiling, ceilingFor, sizeReservation } from "../../../core/limits/reservation.ts";
import { windowOf } from "../../../core/limits/windows.ts";
import { Catalog } from "../../../core/routing/catalog.ts";
import { canonicalRequest, endpointOf, modelConfig, providerConfig } from "../pipeline/helpers.ts";

describe("credit windows (midnight UTC, weeks from Monday)", () => {
  const at = (iso: string) => Date.parse(iso);
  test("daily, weekly, monthly and lifetime", () => {
    const now = at("2025-03-13T17:45:00Z"); // a Thursday
    expect(windowOf("daily", now)).toEqual({ id: `d${at("2025-03-13T00:00:00Z")}`, start: at("2025-03-13T00:00:00Z"), end: at("2025-03-14T00:00:00Z") });
    expect(windowOf("weekly", now)).toMatchObject({ start: at("2025-03-10T00:00:00Z"), end: at("2025-03-17T00:00:00Z") });
    expect(windowOf("monthly", now)).toMatchObject({ start: at("2025-03-01T00:00:00Z"), end: at("2025-04-01T00:00:00Z") });
    expect(windowOf(null, now)).toEqual({ id: "all", start: 0, end: null });
  });

  test("edges: Sunday belongs to the week that began on Monday; December rolls into January", () => {
    expect(windowOf("weekly", at("2025-03-16T23:59:59Z")).start).toBe(at("2025-03-10T00:00:00Z"));
    expect(windowOf("weekly", at("2025-03-17T00:00:00Z")).start).toBe(at("2025-03-17T00:00:00Z"));
    expect(windowOf("monthly", at("2025-12-31T12:00:00Z")).end).toBe(at("2026-01-01T00:00:00Z"));
  });
});

describe("prompt size", () => {
  test("the bound is at least the UTF-8 byte count (never fewer tokens than bytes for byte-level BPE)", () => {
    const request = canonicalRequest({
      system: [{ type: "text", text: "be brief" }],
      messages: [
        { role: "user", parts: [{ type: "text", text: "héllo ✓" }, { type: "image", url: "https://x/y.png" }] },
        { role: "assistant", parts: [{ type: "tool-call", id: "c", name: "f", arguments: '{"a":1}' }] },
        { role: "tool", parts: [{ type: "tool-result", callId: "c", content: "42" }] },
      ],
      tools: [{ kind: "function", name: "f", description: "d", parameters: { type: "object" } }],
    });
    const size = promptSize(request);
    const bytes = 8 + Buffer.byteLength("héllo ✓") + 1 + 7 + 2 + 2 + JSON.stringify({ type: "object" }).length;
    expect(size).toEqual({ bytes, messages: 4, attachments: 1 });
    expect(promptTokenBound(size)).toBe(bytes + 4 * 8 + 8_000);
    expect(promptTokenEstimate(size)).toBeLessThan(promptTokenBound(size));
  });
});

describe("reservation sizing", () => {
  const cheap = modelConfig("m/a", { prompt: 1e-6, completion: 2e-6 });
  const dear = { ...modelConfig("m/a", { prompt: 3e-6, completion: 1e-5, cacheWrite: 4e-6, request: 0.001 }), maxOutputTokens: 1000 };
  const other = { ...modelConfig("m/b", { prompt: 1e-6, completion: 5e-5 }), maxOutputTokens: 200 };
  const catalog = new Catalog();
  catalog.add(endpointOf(cheap, providerConfig("c", [cheap])));
  catalog.add(endpointOf(dear, providerConfig("d", [dear])));
  catalog.add(endpointOf(other, providerConfig("o", [other])));

  test("the whole catalog's ceiling follows the catalog when a server's discovered models change it", () => {
    const local = new Catalog();
    local.add(endpointOf(other, providerConfig("o", [other])));
    expect(catalogCeiling(local)).toMatchObject({ completionPrice: 5e-5, maxOutputTokens: 200 });
    // A discovered model with no declared output bound makes the worst case unbounded.
    local.setDiscovered("box", [endpointOf(modelConfig("box/qwen3", { prompt: 0, completion: 0 }), providerConfig("box", []))]);
    expect(catalogCeiling(local)).toMatchObject({ completionPrice: 5e-5, maxOutputTokens: undefined });
  });

  test("the most expensive endpoint of every requested model prices the worst case", () => {
    const ceiling = ceilingFor(canonicalRequest({ model: "m/a", models: ["m/b"] }), catalog)!;
    expect(ceiling).toEqual({ promptPrice: 4e-6, completionPrice: 5e-5, requestPrice: 0.001, maxOutputTokens: undefined });
    expect(ceilingFor(canonicalRequest({ model: "nope" }), catalog)).toBeUndefined();
  });

  test("max_tokens, else the endpoints' max output, else the default; unbounded is flagged", () => {
    const prompt = { bytes: 100, messages: 1, attachments: 0 };
    const only = (id: string) => ceilingFor(canonicalRequest({ model: id }), catalog)!;
    const withMax = sizeReservation(canonicalRequest({ maxTokens: 50 }), prompt, only("m/b"), 4096);
    expect(withMax.outputTokens).toBe(50);
    expect(withMax.amount).toBeCloseTo(108 * 1e-6 + 50 * 5e-5, 15);
    expect(sizeReservation(canonicalRequest(), prompt, only("m/b"), 4096)).toMatchObject({ outputTokens: 200, unbounded: false });
    expect(sizeReservation(canonicalRequest(), prompt, only("m/a"), 4096)).toMatchObject({ outputTokens: 4096, unbounded: true });
  });
});
