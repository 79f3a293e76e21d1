/** core/pipeline/turn/meter.ts: one turn priced at the endpoint that served it and added to the request's bill once. */
import { describe, expect, test } from "bun:test";
import { GatewayError } from "../../../../core/errors.ts";
import { streamOutcome, type StreamOutcome } from "../../../../core/pipeline/outcome.ts";
import { meterResponse, meterStream } from "../../../../core/pipeline/turn/meter.ts";
import { canonicalRequest, drain, endpointOf, modelConfig, providerConfig, replay, response, testContext, usageOf, type StreamEvent, type TestContext } from "../helpers.ts";

// Binary-exact prices so expected costs are exact.
const model = modelConfig("acme/a", { prompt: 0.5, completion: 2 });
const endpoint = endpointOf(model, providerConfig("acme", [model]));

function streamContext(): TestContext {
  const ctx = testContext({ request: canonicalRequest({ stream: true }) });
  (ctx as { startedAt: number }).startedAt = ctx.deps.clock.now();
  return ctx;
}

function metered(ctx: TestContext, source: AsyncIterable<StreamEvent>): StreamOutcome {
  const outcome = streamOutcome(source);
  meterStream(ctx, endpoint, outcome);
  return outcome;
}

describe("meterResponse", () => {
  test("prices the response, attaches the cost and adds the turn with its finish and status", () => {
    const ctx = testContext();
    const res = response({ usage: usageOf(4, 3), finish: { reason: "length", raw: "max_tokens" } });
    meterResponse(ctx, endpoint, res);
    expect(res.cost).toEqual({ total: 8, input: 2, output: 6, upstream: null });
    expect([ctx.bill.finishedTurns, ctx.bill.turnCost.total, ctx.bill.usage.output.total]).toEqual([1, 8, 3]);
    expect([ctx.bill.ending.finish, ctx.bill.ending.status, ctx.bill.ending.errorType]).toEqual(["max_tokens", 200, undefined]);
  });

  test("an error response with no output costs nothing and records its status and type", () => {
    const ctx = testContext();
    const res = response({ usage: usageOf(10, 0), finish: { reason: "error" }, error: { type: "provider_unavailable", message: "down", status: 502 } });
    meterResponse(ctx, endpoint, res);
    expect(res.cost?.total).toBe(0);
    expect([ctx.bill.ending.finish, ctx.bill.ending.status, ctx.bill.ending.errorType, ctx.bill.usage.input.total]).toEqual(["error", 502, "provider_unavailable", 10]);
  });

  test("each metered turn adds to the same bill", () => {
    const ctx = testContext();
    meterResponse(ctx, endpoint, response({ usage: usageOf(4, 3) }));
    meterResponse(ctx, endpoint, response({ usage: usageOf(2, 1) }));
    expect([ctx.bill.finishedTurns, ctx.bill.turnCost.total, ctx.bill.usage.input.total]).toEqual([2, 11, 6]);
  });
});

describe("meterStream", () => {
  test("usage events get the endpoint's cost; the turn is added once, when the stream ends", async () => {
    const ctx = streamContext();
    const outcome = metered(
      ctx,
      replay<StreamEvent>([
        { type: "text-delta", id: "t", delta: "hi" },
        { type: "usage", usage: usageOf(4, 1) },
        { type: "finish", finish: { reason: "stop", raw: "end_turn" } },
      ]),
    );
    const iterator = outcome.events[Symbol.asyncIterator]();
    await iterator.next();
    const usage = await iterator.next();
    expect(usage.value).toEqual({ type: "usage", usage: usageOf(4, 1), cost: { total: 4, input: 2, output: 2, upstream: null } });
    expect(ctx.bill.finishedTurns).toBe(0);
    await iterator.next();
    expect((await iterator.next()).done).toBe(true);
    expect([ctx.bill.finishedTurns, ctx.bill.turnCost.total, ctx.bill.ending.finish, ctx.bill.ending.status]).toEqual([1, 4, "end_turn", 200]);
  });

  test("the first output event sets the time to first token, once", async () => {
    const ctx = streamContext();
    const outcome = metered(
      ctx,
      (async function* (): AsyncGenerator<StreamEvent> {
        ctx.deps.clock.advance(10);
        yield { type: "start", id: "x", model: "acme/a", provider: "acme", created: 1 };
        ctx.deps.clock.advance(20);
        yield { type: "text-delta", id: "t", delta: "a" };
        ctx.deps.clock.advance(50);
        yield { type: "text-delta", id: "t", delta: "b" };
      })(),
    );
    await drain(outcome.events);
    expect(ctx.firstTokenMs).toBe(30);
  });

  test("a client that goes away mid-stream: the turn is added once with what was produced, finish 'aborted'", async () => {
    const ctx = streamContext();
    let ended = 0;
    const outcome = metered(
      ctx,
      replay<StreamEvent>([
        { type: "text-delta", id: "t", delta: "a" },
        { type: "usage", usage: usageOf(2, 1) },
        { type: "text-delta", id: "t", delta: "b" },
        { type: "finish", finish: { reason: "stop" } },
      ]),
    );
    outcome.observe({ event: (e) => e, fail: () => {}, end: () => void ended++ });
    const iterator = outcome.events[Symbol.asyncIterator]();
    await iterator.next();
    await iterator.next();
    await iterator.return?.();
    await iterator.return?.();
    expect([ctx.bill.finishedTurns, ctx.bill.turnCost.total, ctx.bill.usage.output.total, ctx.bill.ending.finish, ctx.bill.ending.status]).toEqual([1, 3, 1, "aborted", 200]);
    expect(ended).toBe(1);
  });

  test("a client gone after a prompt-only usage (reported before the first token): the output seen is estimated", async () => {
    const ctx = streamContext();
    const outcome = metered(
      ctx,
      replay<StreamEvent>([
        { type: "usage", usage: usageOf(40, 0) },
        { type: "text-delta", id: "t", delta: "abcdefgh" },
        { type: "text-delta", id: "t", delta: "never read" },
        { type: "usage", usage: usageOf(40, 9) },
        { type: "finish", finish: { reason: "stop" } },
      ]),
    );
    const iterator = outcome.events[Symbol.asyncIterator]();
    await iterator.next();
    await iterator.next();
    await iterator.return?.();
    // The upstream's own prompt count is kept; the 8 characters seen are about 2 tokens.
    expect([ctx.bill.usage.input.total, ctx.bill.usage.output.total, ctx.bill.ending.finish]).toEqual([40, 2, "aborted"]);
  });

  test("an in-band error event records the turn's status and error type; no output, no charge", async () => {
    const ctx = streamContext();
    const outcome = metered(
      ctx,
      replay<StreamEvent>([
        { type: "usage", usage: usageOf(3, 0) },
        { type: "error", error: new GatewayError("provider_overloaded", "busy") },
      ]),
    );
    const events = await drain(outcome.events);
    expect(events.map((e) => e.type)).toEqual(["usage", "error"]);
    expect([ctx.bill.ending.finish, ctx.bill.ending.status, ctx.bill.ending.errorType, ctx.bill.turnCost.total, ctx.bill.usage.input.total]).toEqual(["error", 529, "provider_overloaded", 0, 3]);
  });

  test("an error after output still bills the output", async () => {
    const ctx = streamContext();
    const outcome = metered(
      ctx,
      replay<StreamEvent>([
        { type: "text-delta", id: "t", delta: "a" },
        { type: "usage", usage: usageOf(2, 1) },
        { type: "error", error: new GatewayError("timeout", "stalled", { status: 524 }) },
      ]),
    );
    await drain(outcome.events);
    expect([ctx.bill.ending.finish, ctx.bill.ending.status, ctx.bill.ending.errorType, ctx.bill.turnCost.total]).toEqual(["error", 524, "timeout", 3]);
  });

  test("a source that throws is recorded as the turn's failure, and the error propagates", async () => {
    const ctx = streamContext();
    const outcome = metered(
      ctx,
      (async function* (): AsyncGenerator<StreamEvent> {
        yield { type: "text-delta", id: "t", delta: "a" };
        throw new GatewayError("timeout", "upstream went quiet", { status: 524 });
      })(),
    );
    await expect(drain(outcome.events)).rejects.toThrow("upstream went quiet");
    expect([ctx.bill.finishedTurns, ctx.bill.ending.finish, ctx.bill.ending.status, ctx.bill.ending.errorType]).toEqual([1, "error", 524, "timeout"]);
  });

  test("an unexpected throw is recorded as a 500 server error", async () => {
    const ctx = streamContext();
    const outcome = metered(
      ctx,
      (async function* (): AsyncGenerator<StreamEvent> {
        throw new TypeError("adapter bug");
      })(),
    );
    await expect(drain(outcome.events)).rejects.toThrow("adapter bug");
    expect([ctx.bill.ending.status, ctx.bill.ending.errorType]).toEqual([500, "server"]);
  });

  test("a stream's observers must be attached before it is read", async () => {
    const ctx = streamContext();
    const outcome = streamOutcome(replay<StreamEvent>([{ type: "finish", finish: { reason: "stop" } }]));
    const iterator = outcome.events[Symbol.asyncIterator]();
    await iterator.next();
    expect(() => meterStream(ctx, endpoint, outcome)).toThrow("must be attached before it is read");
  });
});
