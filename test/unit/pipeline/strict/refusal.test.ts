import { describe, expect, test } from "bun:test";
import { GatewayError } from "../../../../core/errors.ts";
import type { Warning } from "../../../../core/model/warnings.ts";
import { strictHelpers } from "../../../../core/pipeline/strict/guarded-fetch.ts";
import { isStrict, strictHeader } from "../../../../core/pipeline/strict/mode.ts";
import { refusesInStrictMode, strictRefusal } from "../../../../core/pipeline/strict/refusal.ts";
import { fakeHelpers } from "../../providers/helpers.ts";

const topK: Warning = { code: "unsupported_field", field: "top_k", message: "Anthropic does not support top_k; it was not sent" };
const defaulted: Warning = { code: "defaulted", field: "max_tokens", message: "Anthropic requires max_tokens; 4096 was sent" };

describe("strictRefusal", () => {
  test("nothing lost: no refusal; a filled-in default is no loss", () => {
    expect(strictRefusal([])).toBeUndefined();
    expect(strictRefusal([defaulted])).toBeUndefined();
    expect(refusesInStrictMode(defaulted)).toBe(false);
    for (const code of ["unsupported_field", "approximated", "unknown_field", "conflicting_field", "unsupported_tool", "unsupported_item", "unsupported_content"]) {
      expect(refusesInStrictMode({ code, message: "x" })).toBe(true);
    }
  });

  test("a 422 unprocessable naming every field once, the first as param, the warnings as metadata", () => {
    const error = strictRefusal([topK, defaulted, { ...topK }, { code: "approximated", field: "reasoning", message: "minimal level was sent" }], "up-anthropic")!;
    expect(error).toBeInstanceOf(GatewayError);
    expect(error.type).toBe("unprocessable");
    expect(error.status).toBe(422);
    expect(error.retryable).toBe(false);
    expect(error.message).toStartWith("Strict mode: the request cannot be translated to up-anthropic without loss (top_k, reasoning).");
    expect(error.metadata).toEqual({ param: "top_k", fields: ["top_k", "reasoning"], warnings: [topK, topK, { code: "approximated", field: "reasoning", message: "minimal level was sent" }] });
  });

  test("a warning without a field is named by its code", () => {
    expect(strictRefusal([{ code: "approximated", message: "something" }])!.metadata?.fields).toEqual(["approximated"]);
  });
});

describe("the strict header and defaults", () => {
  const headers = (value?: string) => new Headers(value === undefined ? {} : { "X-Service-Strict": value });
  test("the header wins either way; then the key's default, then the config's; else off", () => {
    expect(isStrict(headers("true"), false, false)).toBe(true);
    expect(isStrict(headers("false"), true, true)).toBe(false);
    expect(isStrict(headers(" TRUE "), undefined, undefined)).toBe(true);
    expect(isStrict(headers(), true, false)).toBe(true);
    expect(isStrict(headers(), undefined, true)).toBe(true);
    expect(isStrict(headers(), undefined, undefined)).toBe(false);
  });

  test("any other value is a 400 naming the header", () => {
    expect(() => strictHeader(headers("1"))).toThrow(/X-Service-Strict/);
    expect(() => strictHeader(headers(""))).toThrow(/X-Service-Strict/);
  });
});

describe("strictHelpers: the adapter's first fetch", () => {
  test("refuses what the adapter recorded after `from`, aborting the attempt, without fetching", async () => {
    let fetched = 0;
    let aborted: GatewayError | undefined;
    const warnings: Warning[] = [{ code: "unsupported_field", field: "before", message: "recorded before the adapter ran" }];
    const helpers = strictHelpers(fakeHelpers({ fetch: async () => (fetched++, new Response("{}")) }), { warnings, from: 1, upstream: "up", abort: (e) => (aborted = e) });
    warnings.push(topK);
    const refusal = await helpers.fetch("http://upstream.invalid/").catch((e: unknown) => e);
    expect(fetched).toBe(0);
    expect(refusal).toBe(aborted!);
    expect((refusal as GatewayError).metadata?.fields).toEqual(["top_k"]);
  });

  test("fetches when nothing was lost; warnings recorded later (the reply's) are not looked at", async () => {
    let fetched = 0;
    const warnings: Warning[] = [topK];
    const helpers = strictHelpers(fakeHelpers({ fetch: async () => (fetched++, new Response("{}")) }), { warnings, from: 1, upstream: "up", abort: () => undefined });
    warnings.push(defaulted);
    await helpers.fetch("http://upstream.invalid/");
    warnings.push({ code: "unsupported_output", field: "output[0]", message: "dropped" });
    await helpers.fetch("http://upstream.invalid/");
    expect(fetched).toBe(2);
  });
});
