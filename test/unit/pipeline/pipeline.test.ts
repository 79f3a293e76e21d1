/**
 * core/pipeline/pipeline.ts: the stages run outermost first, so when a request would be refused by two of them, the
 * outer one answers, and a refusal by an inner one comes after the outer ones have done their part (a rate-limit slot
 * counted). Each test arms two refusals and reads which one the pipeline gives.
 */
import { describe, expect, test } from "bun:test";
import type { GatewayError } from "../../../core/errors.ts";
import type { Warning } from "../../../core/model/warnings.ts";
import { PIPELINE, runPipeline } from "../../../core/pipeline/pipeline.ts";
import { canonicalRequest, inferencePrincipal, managementPrincipal, testContext, testDeps, type TestDeps } from "./helpers.ts";

/** A loss the format decoder recorded: strict mode refuses it (422). */
const LOSSY: Warning[] = [{ code: "unsupported_field", field: "top_k", message: "not supported" }];
const STRICT = new Headers({ "x-service-strict": "true" });
/** A beta plugin this key is not admitted to: the guardrails stage refuses it (403). */
const BETA = [{ id: "alignment" }];
/** A key allowed one request a minute: the limits stage refuses the second (429). */
const ONE_A_MINUTE = { ...inferencePrincipal, record: { ...inferencePrincipal.record!, rateLimit: { requests: 1, tokens: null, intervalSeconds: 60 } } };

let generation = 0;
async function refusal(deps: TestDeps, overrides: Parameters<typeof testContext>[0]): Promise<{ type: string; message: string }> {
  const ctx = testContext({ deps, generationId: `gen-${++generation}`, ...overrides });
  const error = await runPipeline(ctx).then(
    () => undefined,
    (thrown: unknown) => thrown as GatewayError,
  );
  expect(error).toBeDefined();
  return { type: error!.type, message: error!.message };
}

describe("pipeline order", () => {
  test("the stage list cannot be changed at run time", () => {
    expect(Object.isFrozen(PIPELINE)).toBe(true);
  });

  test("auth before strict: a management key gets its 403 even for a request strict mode would refuse", async () => {
    const result = await refusal(testDeps(), { principal: managementPrincipal, headers: STRICT, request: canonicalRequest({ warnings: [...LOSSY] }) });
    expect(result.type).toBe("permission_denied");
  });

  test("strict before limits: a strict refusal spends no rate-limit slot", async () => {
    const deps = testDeps();
    const lossy = () => ({ principal: ONE_A_MINUTE, headers: STRICT, request: canonicalRequest({ warnings: [...LOSSY] }) });
    expect((await refusal(deps, lossy())).type).toBe("unprocessable");
    expect((await refusal(deps, lossy())).type).toBe("unprocessable");
    // The one slot is still there: the next request gets as far as the guardrails.
    expect((await refusal(deps, { principal: ONE_A_MINUTE, request: canonicalRequest({ plugins: BETA }) })).type).toBe("permission_denied");
  });

  test("limits before guardrails: a guardrail refusal spends the rate-limit slot, and the spent limit answers first", async () => {
    const deps = testDeps();
    const beta = () => ({ principal: ONE_A_MINUTE, request: canonicalRequest({ plugins: BETA }) });
    expect(await refusal(deps, beta())).toEqual({ type: "permission_denied", message: "The alignment plugin is a beta feature this key is not admitted to" });
    expect((await refusal(deps, beta())).type).toBe("rate_limit_exceeded");
  });

  test("guardrails before plugins: the beta refusal comes before the plugins stage looks the plugin up", async () => {
    // The test registry has no plugins: the plugins stage would answer 400 "not available on this gateway".
    expect(await refusal(testDeps(), { request: canonicalRequest({ plugins: BETA }) })).toEqual({
      type: "permission_denied",
      message: "The alignment plugin is a beta feature this key is not admitted to",
    });
  });

  test("plugins before the agent loop: an unknown plugin is named before an unknown server tool", async () => {
    const request = canonicalRequest({ plugins: [{ id: "nope" }], tools: [{ kind: "server", type: "service:nope", parameters: {} }] });
    const result = await refusal(testDeps(), { request });
    expect(result).toEqual({ type: "invalid_request", message: 'plugins[0].id: plugin "nope" is not available on this gateway' });
    // Without the plugin, the agent loop's own refusal is what remains.
    const loop = await refusal(testDeps(), { request: { ...request, plugins: [] } });
    expect(loop.message).toContain('unknown server tool "service:nope"');
  });
});
