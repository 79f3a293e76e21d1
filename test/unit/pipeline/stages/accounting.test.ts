/**
 * core/pipeline/stages/accounting.ts: closes the request's bill (the turns' metered usage and cost, plus plugin
 * charges) into one ledger record per request and commits its credit hold. A real turn meters its outcome
 * (core/pipeline/turn/meter.ts) before handing it on; the stub `next`s here do the same.
 */
import { describe, expect, test } from "bun:test";
import { GatewayError } from "../../../../core/errors.ts";
import type { CanonicalResponse } from "../../../../core/model/response.ts";
import type { CreditHold } from "../../../../core/limits/credits.ts";
import { responseOutcome, streamOutcome, type StreamOutcome } from "../../../../core/pipeline/outcome.ts";
import { accountingStage } from "../../../../core/pipeline/stages/accounting.ts";
import { meterResponse, meterStream } from "../../../../core/pipeline/turn/meter.ts";
import {
  canonicalRequest,
  drain,
  endpointOf,
  managementPrincipal,
  modelConfig,
  providerConfig,
  response,
  stubNext,
  openBill,
  testContext,
  usageOf,
  type StreamEvent,
  type TestContext,
} from "../helpers.ts";

// Binary-exact prices so expected costs are exact.
const model = modelConfig("acme/a", { prompt: 0.5, completion: 2 });
const served = endpointOf(model, providerConfig("acme", [model]));

function servedContext(stream = false): TestContext {
  const ctx = testContext({ request: canonicalRequest({ stream }), served });
  ctx.deps.clock.set(5_000);
  (ctx as { startedAt: number }).startedAt = 5_000;
  return ctx;
}

function streamOf(events: StreamEvent[], onEach?: (e: StreamEvent) => void): AsyncGenerator<StreamEvent> {
  return (async function* () {
    for (const e of events) {
      onEach?.(e);
      yield e;
    }
  })();
}

/** What a model turn hands on: the response, metered at the served endpoint. */
function turnResponse(ctx: TestContext, res: CanonicalResponse) {
  meterResponse(ctx, served, res);
  return responseOutcome(res);
}

/** What a model turn hands on: the stream, with the turn's meter attached. */
function turnStream(ctx: TestContext, events: AsyncIterable<StreamEvent>): StreamOutcome {
  const outcome = streamOutcome(events);
  meterStream(ctx, served, outcome);
  return outcome;
}

describe("accounting stage, non-streamed", () => {
  test("the turn's cost stays on the response; one generation with usage, finish and status", async () => {
    const ctx = servedContext();
    const outcome = await accountingStage.run(
      ctx,
      stubNext(() => {
        ctx.deps.clock.advance(120);
        return turnResponse(ctx, response({ usage: usageOf(4, 3), finish: { reason: "length", raw: "max_tokens" } }));
      }),
    );
    const res = outcome.kind === "response" ? outcome.response : undefined;
    expect(res?.cost).toEqual({ total: 8, input: 2, output: 6, upstream: null });
    expect(ctx.deps.ledger.records).toHaveLength(1);
    expect(ctx.deps.ledger.records[0]).toEqual({
      id: "gen-test",
      workspaceId: "ws-1",
      keyHash: "a".repeat(64),
      format: "chat",
      model: "acme/a",
      providerId: "acme",
      upstreamModel: "up-acme/a",
      streamed: false,
      status: 200,
      finishReason: "max_tokens",
      errorType: null,
      inputTokens: 4,
      cachedInputTokens: 0,
      cacheWriteTokens: 0,
      outputTokens: 3,
      reasoningTokens: 0,
      cost: 8,
      latencyMs: 120,
      firstTokenMs: null,
      createdAt: 5_000,
      // Nothing beyond the served attempt, no pipeline entries, no warnings.
      details: null,
    });
    expect(ctx.log).toMatchObject({ tokens_in: 4, tokens_out: 3, cost: 8 });
  });

  test("an error finish with no output is not charged", async () => {
    const ctx = servedContext();
    const error = { type: "provider_unavailable" as const, message: "down", status: 502 };
    await accountingStage.run(ctx, stubNext(() => turnResponse(ctx, response({ usage: usageOf(10, 0), finish: { reason: "error" }, error }))));
    expect(ctx.deps.ledger.records[0]).toMatchObject({ cost: 0, status: 502, errorType: "provider_unavailable", finishReason: "error", inputTokens: 10 });
    expect(ctx.log.error_type).toBe("provider_unavailable");
  });

  test("a failure inside is recorded (no cost, its status and type) and rethrown unchanged", async () => {
    const ctx = servedContext();
    const failure = new GatewayError("rate_limit_exceeded", "slow");
    const thrown = await accountingStage.run(ctx, () => Promise.reject(failure)).catch((e: unknown) => e);
    expect(thrown).toBe(failure);
    expect(ctx.deps.ledger.records).toHaveLength(1);
    expect(ctx.deps.ledger.records[0]).toMatchObject({ status: 429, errorType: "rate_limit_exceeded", finishReason: "error", cost: 0, outputTokens: 0 });
  });

  test("an unexpected failure is recorded as a 500 server error", async () => {
    const ctx = testContext({ served: undefined });
    await expect(accountingStage.run(ctx, () => Promise.reject(new Error("bug")))).rejects.toThrow("bug");
    expect(ctx.deps.ledger.records[0]).toMatchObject({ status: 500, errorType: "server", providerId: null, model: "acme/a" });
  });

  test("a principal without a stored key record is not billed, but the log line still has tokens", async () => {
    const ctx = servedContext();
    ctx.principal = { ...managementPrincipal, record: undefined };
    await accountingStage.run(ctx, stubNext(() => turnResponse(ctx, response({ usage: usageOf(2, 2) }))));
    expect(ctx.deps.ledger.records).toHaveLength(0);
    expect(ctx.log).toMatchObject({ tokens_in: 2, tokens_out: 2, cost: 5 });
  });

  test("a response no turn metered gets the bill's cost (nothing spent: zero) and one record", async () => {
    const ctx = servedContext();
    const outcome = await accountingStage.run(ctx, stubNext());
    expect(outcome.kind === "response" && outcome.response.cost).toEqual({ total: 0, input: 0, output: 0, upstream: null });
    expect(ctx.deps.ledger.records).toHaveLength(1);
    expect(ctx.deps.ledger.records[0]).toMatchObject({ cost: 0, status: 200, finishReason: "stop" });
  });

  test("plugin charges are added: the response shows the whole bill and the record has it", async () => {
    const ctx = servedContext();
    const outcome = await accountingStage.run(
      ctx,
      stubNext(async () => {
        await ctx.bill.charge({ plugin: "web" }, 0.25, "web search");
        return turnResponse(ctx, response({ usage: usageOf(4, 3) }));
      }),
    );
    expect(outcome.kind === "response" && outcome.response.cost).toEqual({ total: 8.25, input: 2, output: 6, upstream: null });
    expect(ctx.deps.ledger.records[0]).toMatchObject({ cost: 8.25 });
  });

  test("several turns: usage and cost add up, the final response shows the sum, the latest turn's finish is recorded", async () => {
    const ctx = servedContext();
    const outcome = await accountingStage.run(
      ctx,
      stubNext(() => {
        // Two turns started (an agent loop's), each metered as it ends.
        ctx.bill.turnStarts(ctx.request, false);
        ctx.bill.turnStarts(ctx.request, false);
        turnResponse(ctx, response({ usage: usageOf(2, 1), finish: { reason: "tool_calls" } }));
        return turnResponse(ctx, response({ usage: usageOf(4, 3), finish: { reason: "stop", raw: "end_turn" } }));
      }),
    );
    expect(outcome.kind === "response" && outcome.response.cost?.total).toBe(11);
    expect(ctx.deps.ledger.records).toHaveLength(1);
    expect(ctx.deps.ledger.records[0]).toMatchObject({ cost: 11, inputTokens: 6, outputTokens: 4, finishReason: "end_turn" });
  });
});

describe("accounting stage, streamed", () => {
  async function runStream(ctx: TestContext, events: AsyncIterable<StreamEvent>): Promise<AsyncIterable<StreamEvent>> {
    const outcome = await accountingStage.run(ctx, stubNext(() => turnStream(ctx, events)));
    expect(outcome.kind).toBe("stream");
    return (outcome as StreamOutcome).events;
  }

  test("nothing is recorded until the stream ends; usage events carry cost; one record at the end", async () => {
    const ctx = servedContext(true);
    const events = await runStream(
      ctx,
      streamOf(
        [
          { type: "start", id: "x", model: "acme/a", provider: "acme", created: 1 },
          { type: "text-delta", id: "t", delta: "hi" },
          { type: "usage", usage: usageOf(4, 1) },
          { type: "finish", finish: { reason: "stop", raw: "end_turn" } },
        ],
        (e) => {
          if (e.type === "text-delta") ctx.deps.clock.advance(30);
        },
      ),
    );
    expect(ctx.deps.ledger.records).toHaveLength(0);
    const seen = await drain(events);
    const usage = seen.find((e) => e.type === "usage");
    expect(usage).toEqual({ type: "usage", usage: usageOf(4, 1), cost: { total: 4, input: 2, output: 2, upstream: null } });
    expect(seen.map((e) => e.type)).toEqual(["start", "text-delta", "usage", "finish"]);
    expect(ctx.deps.ledger.records).toHaveLength(1);
    expect(ctx.deps.ledger.records[0]).toMatchObject({ streamed: true, status: 200, finishReason: "end_turn", cost: 4, firstTokenMs: 30 });
    expect(ctx.firstTokenMs).toBe(30);
  });

  test("an in-band error event records the error status and type", async () => {
    const ctx = servedContext(true);
    const events = await runStream(
      ctx,
      streamOf([
        { type: "usage", usage: usageOf(3, 0) },
        { type: "error", error: new GatewayError("provider_overloaded", "busy") },
      ]),
    );
    await drain(events);
    expect(ctx.deps.ledger.records[0]).toMatchObject({ status: 529, errorType: "provider_overloaded", finishReason: "error", cost: 0 });
  });

  test("a client that stops reading still gets what was produced billed (once)", async () => {
    const ctx = servedContext(true);
    const events = await runStream(
      ctx,
      streamOf([
        { type: "text-delta", id: "t", delta: "a" },
        { type: "usage", usage: usageOf(2, 1) },
        { type: "text-delta", id: "t", delta: "b" },
        { type: "finish", finish: { reason: "stop" } },
      ]),
    );
    const iterator = events[Symbol.asyncIterator]();
    await iterator.next();
    await iterator.next();
    await iterator.return?.();
    expect(ctx.deps.ledger.records).toHaveLength(1);
    expect(ctx.deps.ledger.records[0]).toMatchObject({ status: 200, finishReason: "aborted", cost: 3, outputTokens: 1 });
  });

  test("a source that throws is recorded as a failure, and the error still reaches the encoder", async () => {
    const ctx = servedContext(true);
    async function* broken(): AsyncGenerator<StreamEvent> {
      yield { type: "text-delta", id: "t", delta: "a" };
      throw new GatewayError("timeout", "upstream went quiet", { status: 524 });
    }
    const events = await runStream(ctx, broken());
    await expect(drain(events)).rejects.toThrow("upstream went quiet");
    expect(ctx.deps.ledger.records).toHaveLength(1);
    expect(ctx.deps.ledger.records[0]).toMatchObject({ status: 524, errorType: "timeout", finishReason: "error" });
    expect(ctx.log.error_type).toBe("timeout");
  });

  test("a stream transformed after the turn (a plugin's stream hook) is still metered and settled", async () => {
    const ctx = servedContext(true);
    const turn = turnStream(ctx, streamOf([{ type: "usage", usage: usageOf(2, 1) }, { type: "finish", finish: { reason: "stop" } }]));
    // The plugins stage sits inside accounting: accounting sees the transformed stream, the meter runs inside the turn's.
    const transformed = streamOutcome(
      (async function* () {
        for await (const e of turn.events) yield e;
        yield { type: "debug", upstreamBody: {} } satisfies StreamEvent;
      })(),
    );
    const outcome = (await accountingStage.run(ctx, stubNext(() => transformed))) as StreamOutcome;
    const seen = await drain(outcome.events);
    expect(seen.map((e) => e.type)).toEqual(["usage", "finish", "debug"]);
    expect(seen[0]).toMatchObject({ cost: { total: 3 } });
    expect(ctx.deps.ledger.records).toHaveLength(1);
    expect(ctx.deps.ledger.records[0]).toMatchObject({ cost: 3, status: 200, finishReason: "stop" });
  });

  test("with plugin charges, the stream's usage event shows the whole bill and the record has it", async () => {
    const ctx = servedContext(true);
    await ctx.bill.charge({ plugin: "mod" }, 0.5, "moderation");
    const events = await runStream(ctx, streamOf([{ type: "usage", usage: usageOf(2, 1) }, { type: "finish", finish: { reason: "stop" } }]));
    const seen = await drain(events);
    expect(seen[0]).toMatchObject({ type: "usage", cost: { total: 3.5, input: 1, output: 2 } });
    expect(ctx.deps.ledger.records[0]).toMatchObject({ cost: 3.5 });
  });
});

describe("accounting stage, settlement", () => {
  /** A credit hold that records how it was settled. */
  function recordingHold(): { hold: CreditHold; settled: Array<["commit", number] | ["release"]> } {
    const settled: Array<["commit", number] | ["release"]> = [];
    return {
      settled,
      hold: {
        amount: 100,
        extend: async () => true,
        commit: async (cost: number) => void settled.push(["commit", cost]),
        release: async () => void settled.push(["release"]),
      },
    };
  }

  test("the credit reservation is committed with the actual cost", async () => {
    const ctx = servedContext();
    const { hold, settled } = recordingHold();
    openBill(ctx, hold);
    await accountingStage.run(ctx, stubNext(() => turnResponse(ctx, response({ usage: usageOf(4, 3) }))));
    expect(settled).toEqual([["commit", 8]]);
  });

  test("a stream commits once, when it ends, with what it used", async () => {
    const ctx = servedContext(true);
    const { hold, settled } = recordingHold();
    openBill(ctx, hold);
    const outcome = await accountingStage.run(
      ctx,
      stubNext(() => turnStream(ctx, streamOf([{ type: "usage", usage: usageOf(2, 1) }, { type: "finish", finish: { reason: "stop" } }]))),
    );
    expect(settled).toEqual([]);
    await drain((outcome as StreamOutcome).events);
    expect(settled).toEqual([["commit", 3]]);
  });

  test("a later stage failing after the upstream answered: the output is still billed, the error is rethrown", async () => {
    const ctx = servedContext();
    const { hold, settled } = recordingHold();
    openBill(ctx, hold);
    const failure = new GatewayError("server", "post-plugin broke");
    const next = async () => {
      turnResponse(ctx, response({ usage: usageOf(4, 3) }));
      throw failure;
    };
    expect(await accountingStage.run(ctx, next).catch((e: unknown) => e)).toBe(failure);
    expect(ctx.deps.ledger.records[0]).toMatchObject({ status: 500, cost: 8, outputTokens: 3, finishReason: "error" });
    expect(settled).toEqual([["commit", 8]]);
  });
});
