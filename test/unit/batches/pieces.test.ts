/** The batch pieces on their own: discount (the item's bill), usage aggregation, result entries and error categories. */
import { describe, expect, test } from "bun:test";
import { Bill } from "../../../core/accounting/bill.ts";
import { closeBill } from "../../../core/accounting/close-bill.ts";
import { errorCategory, ITEM_ERRORS, resultEntry } from "../../../core/batches/results.ts";
import { aggregateUsage, countEnded } from "../../../core/batches/usage.ts";
import type { CreditLedger } from "../../../core/limits/credits.ts";
import type { BatchItemRecord } from "../../../core/store/types/batches.ts";
import { canonicalRequest, inferencePrincipal, openBill, testContext, testDeps, usageOf } from "../pipeline/helpers.ts";

const generation = { id: "gen-1", workspaceId: "ws", keyHash: "k", format: "chat", model: "m", providerId: "p", upstreamModel: "u", streamed: false, status: 200, finishReason: "stop", errorType: null, inputTokens: 10, cachedInputTokens: 0, cacheWriteTokens: 0, outputTokens: 5, reasoningTokens: 0, cost: 0.000008, latencyMs: 1, firstTokenMs: null, createdAt: 1 };

describe("discount", () => {
  // A batch item's bill is priced at 1 − discount (core/batches/execute.ts); the amounts are the bill's own (see
  // test/unit/accounting/bill.test.ts). Here: the item's record and its key's credit hold.
  test("an item's bill records its generation and commits its credit hold at the discounted cost; the hold is reserved at full price", async () => {
    const commits: number[] = [];
    let released = 0;
    const credits = {
      reserve: async () => ({ granted: true as const, hold: { amount: 2, extend: async () => true, commit: async (cost: number) => void commits.push(cost), release: async () => void released++ } }),
    } as unknown as CreditLedger;
    const deps = testDeps({ credits });
    const ctx = testContext({ deps, bill: new Bill(1 - 0.5), request: canonicalRequest({ model: undefined }) });
    const reserved = await deps.credits.reserve({ ...inferencePrincipal.record!, limit: 10 }, 2, ctx.generationId);
    if (!reserved.granted) throw new Error("expected a grant");
    openBill(ctx, reserved.hold);
    ctx.bill.turnEnded(usageOf(10, 5), { total: 1.2, input: 0.2, output: 1, upstream: null }, "stop", 200, undefined);
    closeBill(ctx);
    expect(deps.ledger.records.map((g) => g.cost)).toEqual([0.6]);
    expect(reserved.hold.amount).toBe(2);
    await Bun.sleep(0);
    expect(commits).toEqual([0.6]);
    expect(released).toBe(0);
  });
});

const item = (patch: Partial<BatchItemRecord>): BatchItemRecord => ({ id: "i", batchId: "b", idx: 0, customId: "c", body: {}, status: "pending", claimedBy: null, claimedUntil: null, attempts: 0, result: null, error: null, finishedAt: null, ...patch });
const completed = (usage: Record<string, unknown>) => item({ status: "completed", result: { body: { usage }, request_id: "gen", status_code: 200 } });

describe("usage aggregation", () => {
  test("sums the completed requests' usage into the spec's batch usage object", () => {
    const items = [
      completed({ prompt_tokens: 10, completion_tokens: 5, prompt_tokens_details: { cached_tokens: 2, cache_write_tokens: 1 }, completion_tokens_details: { reasoning_tokens: 3 }, cost: 0.5, cost_details: { upstream_inference_prompt_cost: 0.2, upstream_inference_completions_cost: 0.3, upstream_inference_cost: null }, server_tool_use: { web_search_requests: 1 } }),
      completed({ prompt_tokens: 1, completion_tokens: 1, cost: 0.25, cost_details: { upstream_inference_prompt_cost: 0.05, upstream_inference_completions_cost: 0.2, upstream_inference_cost: 0.1 }, server_tool_use: { web_search_requests: 2 } }),
      item({ status: "failed", error: { message: "x" } }),
      item({ status: "pending" }),
    ];
    expect(aggregateUsage(items)).toEqual({
      prompt_tokens: 11,
      completion_tokens: 6,
      total_tokens: 17,
      cache_creation: { ephemeral_1h_input_tokens: 0, ephemeral_5m_input_tokens: 1 },
      completion_tokens_details: { reasoning_tokens: 3 },
      prompt_tokens_details: { cached_tokens: 2, cache_write_tokens: 1 },
      cost: 0.75,
      cost_details: { upstream_inference_completions_cost: 0.5, upstream_inference_cost: 0.1, upstream_inference_prompt_cost: 0.25 },
      is_byok: false,
      iterations: [],
      server_tool_use: { web_search_requests: 3 },
      service_tier: "batch",
      speed: "standard",
    });
    expect(countEnded(items)).toEqual({ completed: 2, failed: 1 });
  });
});

describe("result entries", () => {
  test("exactly one of response or error; unfinished items have none", () => {
    const done = completed({});
    expect(resultEntry({ ...done, id: "r1", customId: "a" })).toEqual({ id: "r1", custom_id: "a", response: done.result! });
    expect(resultEntry(item({ id: "r2", customId: "b", status: "failed", error: { ...ITEM_ERRORS.cancelled } }))).toEqual({ id: "r2", custom_id: "b", error: ITEM_ERRORS.cancelled });
    expect(resultEntry(item({ status: "running" }))).toBeNull();
  });

  test("OpenAI-style error categories by status", () => {
    expect([400, 401, 402, 403, 404, 408, 409, 422, 429, 500, 502, 524].map(errorCategory)).toEqual([
      "invalid_request_error",
      "authentication_error",
      "insufficient_quota",
      "permission_error",
      "not_found_error",
      "timeout_error",
      "conflict_error",
      "invalid_request_error",
      "rate_limit_error",
      "server_error",
      "server_error",
      "timeout_error",
    ]);
  });
});
