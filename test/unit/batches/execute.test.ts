/**
 * core/batches/execute.ts: one batch item runs through the same pipeline and model turn as live traffic; its result
 * entry is encoded from the outcome, or from the thrown error with the envelope's own rules (no rendered reply is
 * parsed back), and it writes the same request log line.
 */
import { describe, expect, test } from "bun:test";
import { runItem } from "../../../core/batches/execute.ts";
import type { BatchItemRecord, BatchRecord } from "../../../core/store/types/batches.ts";
import { Catalog } from "../../../core/routing/catalog.ts";
import { GatewayError } from "../../../core/errors.ts";
import { storeUnavailable } from "../../../core/ops/unavailable.ts";
import { keyRecord } from "../auth/fakes.ts";
import { endpointOf, fakeAdapter, inferencePrincipal, modelConfig, providerConfig, response, testDeps, usageOf } from "../pipeline/helpers.ts";
import type { RegisteredProvider } from "../../../core/registry/define.ts";

const model = modelConfig("acme/a", { prompt: 0.5, completion: 2 });

function depsWith(adapter: RegisteredProvider) {
  const catalog = new Catalog();
  catalog.add(endpointOf(model, providerConfig("p0", [model]), adapter));
  const record = keyRecord(inferencePrincipal.keyHash);
  return testDeps({ catalog, keyCache: { get: async () => record } as never });
}

const batch = { id: "batch_1", workspaceId: "ws-1", keyHash: inferencePrincipal.keyHash, endpoint: "/chat/completions", model: null } as BatchRecord;
const item: BatchItemRecord = {
  id: "item_1",
  batchId: "batch_1",
  idx: 0,
  customId: "c1",
  body: { model: "acme/a", messages: [{ role: "user", content: "hi" }] },
  status: "running",
  claimedBy: "worker",
  claimedUntil: null,
  attempts: 1,
  result: null,
  error: null,
  finishedAt: null,
};
const requestLines = (deps: ReturnType<typeof depsWith>) => deps.logger.calls.filter((c) => c.msg === "request");

describe("runItem", () => {
  test("a served request becomes a chat-completions result body with its cost, and one request log line", async () => {
    const deps = depsWith(fakeAdapter({ generate: async () => response({ usage: usageOf(4, 3) }) }));
    const ending = await runItem(deps, 0, batch, item, new AbortController().signal);
    if (ending.status !== "completed") throw new Error(`expected a completed item, got ${JSON.stringify(ending)}`);
    const body = ending.result as { body: { object: string; usage: { cost: number } }; status_code: number };
    expect(body.status_code).toBe(200);
    expect(body.body.object).toBe("chat.completion");
    expect(body.body.usage.cost).toBe(8);
    expect(requestLines(deps).map((l) => l.obj.status)).toEqual([200]);
  });

  test("a failed request becomes the error entry the envelope would carry (status category, canonical type, message)", async () => {
    const deps = depsWith(fakeAdapter({ generate: () => Promise.reject(new GatewayError("context_length_exceeded", "prompt too long")) }));
    const ending = await runItem(deps, 0, batch, item, new AbortController().signal);
    expect(ending).toEqual({ status: "failed", error: { message: "prompt too long", param: null, type: "invalid_request_error", error_type: "context_length_exceeded" } });
    expect(requestLines(deps).map((l) => [l.obj.status, l.obj.error_type])).toEqual([[400, "context_length_exceeded"]]);
  });

  test("a store that is down is not the request's ending: the outcome is `unavailable` (the worker runs it again)", async () => {
    const adapter = fakeAdapter();
    const deps = depsWith(adapter);
    deps.keyCache = { get: () => Promise.reject(storeUnavailable("database")) } as never;
    const outcome = await runItem(deps, 0, batch, item, new AbortController().signal);
    expect(outcome.status).toBe("unavailable");
    expect(adapter.calls).toHaveLength(0);
  });

  test("the gateway's own unavailability met inside the pipeline (a credit limit that cannot be checked) is `unavailable` too", async () => {
    const adapter = fakeAdapter();
    const deps = depsWith(adapter);
    const limited = keyRecord(inferencePrincipal.keyHash, { limit: 10 });
    deps.keyCache = { get: async () => limited } as never;
    deps.credits = { reserve: () => Promise.reject(new Error("connect ECONNREFUSED")) } as never;
    const outcome = await runItem(deps, 0, batch, item, new AbortController().signal);
    expect(outcome.status).toBe("unavailable");
    expect(adapter.calls).toHaveLength(0);
  });

  test("an upstream's own 503 is an ending like any provider error", async () => {
    const deps = depsWith(fakeAdapter({ generate: () => Promise.reject(new GatewayError("provider_unavailable", "upstream down", { status: 503 })) }));
    const outcome = await runItem(deps, 0, batch, item, new AbortController().signal);
    expect(outcome.status).toBe("failed");
  });

  test("an internal failure hides its details, like the HTTP envelope", async () => {
    const deps = depsWith(fakeAdapter({ generate: () => Promise.reject(new Error("secret detail")) }));
    const ending = await runItem(deps, 0, batch, item, new AbortController().signal);
    expect(ending).toEqual({ status: "failed", error: { message: "Internal server error", param: null, type: "server_error", error_type: "server" } });
  });
});
