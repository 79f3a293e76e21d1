/** core/pipeline/turn/fallbacks.ts: retries, fallbacks, timeouts, breaker, tiers; never retrying a live stream. */
import { describe, expect, test } from "bun:test";
import { DEFAULT_ROUTING, type RoutingConfig } from "../../../../core/config/routing-limits.ts";
import { GatewayError } from "../../../../core/errors.ts";
import type { EventStream } from "../../../../core/model/events.ts";
import type { RouteState } from "../../../../core/pipeline/context.ts";
import type { Outcome, ResponseOutcome, StreamOutcome } from "../../../../core/pipeline/outcome.ts";
import { compose } from "../../../../core/pipeline/stage.ts";
import { callWithFallbacks, type Walk } from "../../../../core/pipeline/turn/fallbacks.ts";
import { profileOf } from "../../../../core/routing/profile.ts";
import {
  canonicalRequest,
  drain,
  endpointOf,
  fakeAdapter,
  modelConfig,
  providerConfig,
  replay,
  response,
  testConfig,
  testContext,
  testDeps,
  usageOf,
  type StreamEvent,
  type TestContext,
} from "../helpers.ts";

const modelA = modelConfig("acme/a");
const modelB = modelConfig("acme/b");

function setup(adapters: Array<ReturnType<typeof fakeAdapter>>, stream = false, routing: Partial<RoutingConfig> = {}, keepAliveMs = 15_000): TestContext {
  const deps = testDeps({ config: testConfig({ keepAliveMs, routing: { ...DEFAULT_ROUTING, maxRetries: 0, backoffBaseMs: 1, backoffMaxMs: 2, ...routing } }) });
  const ctx = testContext({ deps, request: canonicalRequest({ stream, warnings: [{ code: "unknown_field", field: "foo", message: "ignored foo" }] }) });
  ctx.candidates = adapters.map((adapter, i) => {
    const model = i === 0 ? modelA : modelB;
    return endpointOf(model, providerConfig(`p${i}`, [model]), adapter);
  });
  return ctx;
}

/** The route as routing would build it: no tiers, nothing cooling, nothing excluded, no sticky session. */
function plainRoute(ctx: TestContext): RouteState {
  return { candidates: ctx.candidates, tiers: new Map(), excluded: [], cooling: new Set(), sticky: undefined };
}

/** Walks `ctx.candidates` with the route in `ctx.route` (or a plain one), as a turn does after routing. */
function walk(ctx: TestContext): Promise<Outcome> {
  return callWithFallbacks(ctx, { request: ctx.request, route: { candidates: ctx.candidates, state: ctx.route ?? plainRoute(ctx) } });
}

const responseOf = (outcome: Outcome) => (outcome as ResponseOutcome).response;
const eventsOf = (outcome: Outcome) => drain((outcome as StreamOutcome).events);

const retryable = (status = 502, init: { retryAfter?: number } = {}) =>
  new GatewayError("provider_unavailable", `upstream ${status}`, { status, retryable: true, ...init });
const events = (list: StreamEvent[]) => async () => replay(list);
const textStream: StreamEvent[] = [
  { type: "start", id: "upstream-9", model: "acme/a", provider: "p0", created: 1 },
  { type: "text-start", id: "t" },
  { type: "text-delta", id: "t", delta: "x" },
  { type: "usage", usage: usageOf(3, 1) },
  { type: "finish", finish: { reason: "stop" } },
];

/** An adapter stream that yields `first` and then never anything else (until its signal aborts). */
function hangingAfter(first: StreamEvent[]) {
  return async (call: { signal: AbortSignal }) =>
    (async function* () {
      yield* first;
      await new Promise((resolve) => call.signal.addEventListener("abort", resolve, { once: true }));
    })();
}

/** An adapter streaming `textStream` (once `opened` resolves) that records when its upstream stream is closed. */
function closingUpstream(opened: Promise<void> = Promise.resolve()) {
  const upstream = {
    closed: false,
    adapter: fakeAdapter({
      stream: async () => {
        await opened;
        return (async function* () {
          try {
            yield* textStream;
          } finally {
            upstream.closed = true;
          }
        })();
      },
    }),
  };
  return upstream;
}

describe("non-streamed", () => {
  test("the first endpoint serves: our id, the request's warnings, the attempt recorded, the client's abort forwarded", async () => {
    const first = fakeAdapter({
      generate: async () => {
        ctx.deps.clock.advance(40);
        return response({ id: "upstream-123" });
      },
    });
    const ctx = setup([first, fakeAdapter()]);
    const started = ctx.deps.clock.now();
    const res = responseOf(await walk(ctx));
    expect(res.id).toBe("gen-test");
    expect(res.warnings).toEqual([{ code: "unknown_field", field: "foo", message: "ignored foo" }]);
    expect(ctx.served).toBe(ctx.candidates[0]);
    expect(ctx.log.provider).toBe("p0");
    expect(ctx.attempts).toEqual([{ model: "acme/a", providerId: "p0", startedAt: started, endedAt: started + 40, status: 200 }]);
    expect(first.calls).toHaveLength(1);
    expect(first.calls[0]!.target).toBe(ctx.candidates[0]!.target);
    expect(first.calls[0]!.helpers).toBe(ctx.deps.helpers);
    expect(first.calls[0]!.onUpstreamBody).toBeUndefined();
    expect(first.calls[0]!.signal.aborted).toBe(false);
  });

  test("a retryable failure falls back to the next endpoint", async () => {
    const second = fakeAdapter({ generate: async () => response() });
    const ctx = setup([fakeAdapter({ generate: () => Promise.reject(retryable(503)) }), second]);
    await walk(ctx);
    expect(ctx.served).toBe(ctx.candidates[1]);
    expect(ctx.attempts.map((a) => [a.providerId, a.status, a.errorType])).toEqual([
      ["p0", 503, "provider_unavailable"],
      ["p1", 200, undefined],
    ]);
    expect(second.calls).toHaveLength(1);
  });

  test("transient failures are retried on the same endpoint up to max_retries, then the next endpoint is tried", async () => {
    let calls = 0;
    const flaky = fakeAdapter({ generate: () => (++calls <= 2 ? Promise.reject(retryable(502)) : Promise.resolve(response())) });
    const ctx = setup([flaky, fakeAdapter()], false, { maxRetries: 2 });
    await walk(ctx);
    expect(flaky.calls).toHaveLength(3);
    expect(ctx.served).toBe(ctx.candidates[0]);
    expect(ctx.attempts.map((a) => a.status)).toEqual([502, 502, 200]);
  });

  test("Retry-After within the deadline is waited for; beyond it, the next endpoint is tried at once", async () => {
    let calls = 0;
    const limited = fakeAdapter({ generate: () => (++calls === 1 ? Promise.reject(retryable(429, { retryAfter: 0.15 })) : Promise.resolve(response())) });
    const ctx = setup([limited, fakeAdapter()], false, { maxRetries: 1 });
    const started = performance.now();
    await walk(ctx);
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    expect(ctx.served).toBe(ctx.candidates[0]);

    const second = fakeAdapter();
    const far = setup([fakeAdapter({ generate: () => Promise.reject(retryable(429, { retryAfter: 60 })) }), second], false, { maxRetries: 1, retryDeadlineMs: 5_000 });
    const t0 = performance.now();
    await walk(far);
    expect(performance.now() - t0).toBeLessThan(100);
    expect(far.served).toBe(far.candidates[1]);
    expect(second.calls).toHaveLength(1);
  });

  test("no new attempt starts after the retry deadline", async () => {
    const third = fakeAdapter();
    const ctx = setup(
      [
        fakeAdapter({
          generate: async () => {
            ctx.deps.clock.advance(31_000);
            throw retryable(502);
          },
        }),
        third,
      ],
      false,
      { retryDeadlineMs: 30_000 },
    );
    await expect(walk(ctx)).rejects.toThrow("upstream 502");
    expect(third.calls).toHaveLength(0);
  });

  test("a non-retryable failure stops at once and is thrown as it is", async () => {
    const failure = new GatewayError("context_length_exceeded", "too long");
    const second = fakeAdapter();
    const ctx = setup([fakeAdapter({ generate: () => Promise.reject(failure) }), second]);
    expect(await walk(ctx).catch((e: unknown) => e)).toBe(failure);
    expect(second.calls).toHaveLength(0);
    expect(ctx.served).toBeUndefined();
  });

  test("an adapter bug (plain Error) is never retried and becomes a 500 without internals", async () => {
    const second = fakeAdapter();
    const ctx = setup([fakeAdapter({ generate: () => Promise.reject(new TypeError("x is undefined")) }), second]);
    const error = (await walk(ctx).catch((e: unknown) => e)) as GatewayError;
    expect([error.type, error.status, error.message]).toEqual(["server", 500, "Internal server error"]);
    expect(second.calls).toHaveLength(0);
  });

  test("when every endpoint fails with different kinds: a 502 with every attempt listed", async () => {
    const ctx = setup([
      fakeAdapter({ generate: () => Promise.reject(retryable(502)) }),
      fakeAdapter({ generate: () => Promise.reject(new GatewayError("rate_limit_exceeded", "slow", { retryable: true, retryAfter: 3, metadata: { limit: 10 } })) }),
    ]);
    const error = (await walk(ctx).catch((e: unknown) => e)) as GatewayError;
    expect([error.type, error.status, error.retryable]).toEqual(["provider_unavailable", 502, true]);
    expect(error.metadata).toEqual({
      previous_errors: [
        { provider: "p0", model: "acme/a", code: 502, status: 502, error_type: "provider_unavailable" },
        { provider: "p1", model: "acme/b", code: 429, status: 429, error_type: "rate_limit_exceeded" },
      ],
    });
  });

  test("when every endpoint is rate limited: a 429 with the soonest Retry-After", async () => {
    const limited = (retryAfter: number) => new GatewayError("rate_limit_exceeded", "slow", { retryable: true, retryAfter });
    const ctx = setup([fakeAdapter({ generate: () => Promise.reject(limited(7)) }), fakeAdapter({ generate: () => Promise.reject(limited(3)) })]);
    const error = (await walk(ctx).catch((e: unknown) => e)) as GatewayError;
    expect([error.type, error.status, error.retryAfter]).toEqual(["rate_limit_exceeded", 429, 3]);
  });

  test("a call that outlives request_timeout_ms fails with a retryable 408 and the next endpoint serves", async () => {
    let aborted = false;
    const hung = fakeAdapter({
      generate: (call) =>
        new Promise((_, reject) =>
          call.signal.addEventListener("abort", () => {
            aborted = true;
            reject(call.signal.reason);
          }),
        ),
    });
    const ctx = setup([hung, fakeAdapter()], false, { requestTimeoutMs: 60, assumedOutputTokensPerSecond: 1e9 });
    await walk(ctx);
    expect(aborted).toBe(true);
    expect(ctx.attempts.map((a) => [a.status, a.errorType])).toEqual([
      [408, "timeout"],
      [200, undefined],
    ]);
  });

  test("a failure after the turn handed its outcome on is not an upstream failure: no retry, no fallback", async () => {
    const second = fakeAdapter();
    const ctx = setup([fakeAdapter(), second]);
    // A stage outside the turn (a post hook, say) fails once the turn has resolved.
    const failsAfter = { name: "post", run: async (_c: unknown, next: () => Promise<Outcome>) => (await next(), Promise.reject(new Error("post-plugin broke"))) };
    const turn = { name: "turn", run: () => walk(ctx) };
    await expect(compose([failsAfter, turn])(ctx)).rejects.toThrow("post-plugin broke");
    expect(second.calls).toHaveLength(0);
    expect(ctx.attempts).toHaveLength(1);
    expect(ctx.served).toBe(ctx.candidates[0]);
  });

  test("no candidates is a 503; a client already gone is a 408 with no upstream call", async () => {
    const error = (await walk(setup([])).catch((e: unknown) => e)) as GatewayError;
    expect([error.type, error.status]).toEqual(["provider_unavailable", 503]);
    const adapter = fakeAdapter();
    const ctx = setup([adapter]);
    const controller = new AbortController();
    controller.abort();
    (ctx as { signal: AbortSignal }).signal = controller.signal;
    const gone = (await walk(ctx).catch((e: unknown) => e)) as GatewayError;
    expect([gone.type, gone.status]).toEqual(["timeout", 408]);
    expect(adapter.calls).toHaveLength(0);
  });

  test("the abort after a failed attempt stops the walk", async () => {
    const controller = new AbortController();
    const second = fakeAdapter();
    const ctx = setup([
      fakeAdapter({
        generate: () => {
          controller.abort();
          return Promise.reject(retryable());
        },
      }),
      second,
    ]);
    (ctx as { signal: AbortSignal }).signal = controller.signal;
    await expect(walk(ctx)).rejects.toThrow("upstream 502");
    expect(second.calls).toHaveLength(0);
  });
});

describe("breaker and tiers", () => {
  test("a failure reaches the breaker (threshold 1 opens it); an open endpoint with others after it is skipped", async () => {
    const ctx = setup([fakeAdapter({ generate: () => Promise.reject(retryable()) }), fakeAdapter()], false, { maxRetries: 2, breaker: { failureThreshold: 1, failureWindowMs: 60_000, cooldownMs: 30_000 } });
    await walk(ctx);
    const [first] = ctx.candidates;
    expect(ctx.deps.routing.health.stateOf(profileOf(first!).key)).toBe("open");
    const skipped = fakeAdapter();
    const again = setup([skipped, fakeAdapter()]);
    again.candidates[0] = { ...again.candidates[0]!, adapter: skipped, model: first!.model, provider: first!.provider };
    (again.deps as { routing: unknown }).routing = ctx.deps.routing;
    // A different endpoint object with the same provider and model shares the breaker (same key).
    await walk(again);
    expect(skipped.calls).toHaveLength(0);
    expect(again.served).toBe(again.candidates[1]);
  });

  test("an open endpoint that is the last candidate is still tried, and its success closes the breaker", async () => {
    const only = fakeAdapter();
    const ctx = setup([only], false, { breaker: { failureThreshold: 1, failureWindowMs: 60_000, cooldownMs: 30_000 } });
    ctx.deps.routing.health.recordFailure(profileOf(ctx.candidates[0]!).key, retryable());
    await walk(ctx);
    expect(only.calls).toHaveLength(1);
    expect(ctx.deps.routing.health.stateOf(profileOf(ctx.candidates[0]!).key)).toBe("closed");
  });

  test("a tier the endpoint does not offer is not forwarded; the result reports the tier used", async () => {
    const adapter = fakeAdapter();
    const ctx = setup([adapter]);
    ctx.request.serviceTier = "priority";
    ctx.route = { candidates: ctx.candidates, tiers: new Map([[ctx.candidates[0]!, "default"]]), excluded: [], cooling: new Set(), sticky: undefined };
    const outcome = await walk(ctx);
    expect(adapter.calls[0]!.request.serviceTier).toBeUndefined();
    expect(responseOf(outcome).serviceTier).toBe("default");
    expect(ctx.attempts[0]!.tier).toBe("default");

    const ultra = fakeAdapter();
    const u = setup([ultra]);
    u.request.serviceTier = "ultrafast";
    u.route = { candidates: u.candidates, tiers: new Map([[u.candidates[0]!, "priority"]]), excluded: [], cooling: new Set(), sticky: undefined };
    await walk(u);
    expect(ultra.calls[0]!.request.serviceTier).toBe("priority");
    expect(u.request.serviceTier).toBe("ultrafast");
  });

  test("the session is pinned to the provider that served it", async () => {
    const ctx = setup([fakeAdapter()]);
    ctx.route = { candidates: ctx.candidates, tiers: new Map(), excluded: [], cooling: new Set(), sticky: { key: "sticky-key", model: "acme/a", pinned: undefined } };
    await walk(ctx);
    await Bun.sleep(0);
    expect(await ctx.deps.kv.get("sticky-key")).toBe("p0");
  });
});

describe("streamed", () => {
  test("the stream is handed on with our generation id on the start event", async () => {
    const adapter = fakeAdapter({ stream: events(textStream) });
    const ctx = setup([adapter], true);
    const outcome = await walk(ctx);
    // A stream gets the helpers whose fetch suits a body read for minutes (the one-shot ones are Bun's fetch).
    expect(adapter.calls[0]!.helpers).toBe(ctx.deps.streamHelpers);
    expect(ctx.deps.streamHelpers).not.toBe(ctx.deps.helpers);
    const out = await eventsOf(outcome);
    expect(out[0]).toEqual({ type: "start", id: "gen-test", model: "acme/a", provider: "p0", created: 1 });
    // The turn is metered at the endpoint that served it: the usage event carries its cost.
    const cost = { total: 0.000005, input: 0.000003, output: 0.000002, upstream: null };
    expect(out.slice(1)).toEqual(textStream.slice(1).map((e) => (e.type === "usage" ? { ...e, cost } : e)));
    expect(ctx.bill.turnCost).toEqual(cost);
  });

  test("with debug.echo_upstream_body the first event is the body the adapter sent upstream", async () => {
    const ctx = setup(
      [
        fakeAdapter({
          stream: async (call) => {
            call.onUpstreamBody?.({ model: "up-acme/a", stream: true });
            return replay<StreamEvent>([{ type: "finish", finish: { reason: "stop" } }]);
          },
        }),
      ],
      true,
    );
    ctx.request.debug = { echoUpstreamBody: true };
    const outcome = await walk(ctx);
    expect(await eventsOf(outcome)).toEqual([
      { type: "debug", upstreamBody: { model: "up-acme/a", stream: true } },
      { type: "finish", finish: { reason: "stop" } },
    ]);
  });

  test("a failure before the stream starts, or an error before any output, falls back; an error after output is never retried", async () => {
    const fourth = fakeAdapter();
    const errorFirst: StreamEvent[] = [{ type: "start", id: "u", model: "m", provider: "p1", created: 1 }, { type: "error", error: retryable(502) }];
    const failing: StreamEvent[] = [
      { type: "text-delta", id: "t", delta: "partial" },
      { type: "error", error: retryable() },
    ];
    const ctx = setup([fakeAdapter({ stream: () => Promise.reject(retryable()) }), fakeAdapter({ stream: events(errorFirst) }), fakeAdapter({ stream: events(failing) }), fourth], true);
    ctx.candidates[2] = endpointOf(modelConfig("acme/c"), providerConfig("p2", [modelConfig("acme/c")]), ctx.candidates[2]!.adapter);
    ctx.candidates[3] = endpointOf(modelConfig("acme/d"), providerConfig("p3", [modelConfig("acme/d")]), fourth);
    const outcome = await walk(ctx);
    expect(await eventsOf(outcome)).toEqual(failing);
    expect(ctx.served).toBe(ctx.candidates[2]);
    expect(ctx.attempts.map((a) => a.status)).toEqual([502, 502, 200]);
    expect(fourth.calls).toHaveLength(0);
  });

  test("a prompt count reported before the first token is not output: an error after it still falls back", async () => {
    const early: StreamEvent[] = [
      { type: "start", id: "u", model: "m", provider: "p1", created: 1 },
      { type: "usage", usage: usageOf(12, 0) },
      { type: "error", error: retryable(502) },
    ];
    const served: StreamEvent[] = [{ type: "text-delta", id: "t", delta: "ok" }, { type: "finish", finish: { reason: "stop" } }];
    const ctx = setup([fakeAdapter({ stream: events(early) }), fakeAdapter({ stream: events(served) })], true);
    const outcome = await walk(ctx);
    expect(await eventsOf(outcome)).toEqual(served);
    expect(ctx.served).toBe(ctx.candidates[1]);
    expect(ctx.attempts.map((a) => a.status)).toEqual([502, 200]);
  });

  test("no output within first_byte_timeout_ms: a retryable 408, the upstream is aborted, the next endpoint serves", async () => {
    const calls: AbortSignal[] = [];
    const hung = fakeAdapter({
      stream: async (call) => {
        calls.push(call.signal);
        return hangingAfter([{ type: "start", id: "u", model: "m", provider: "p0", created: 1 }])(call);
      },
    });
    const ctx = setup([hung, fakeAdapter({ stream: events(textStream) })], true, { firstByteTimeoutMs: 60 });
    const outcome = await walk(ctx);
    expect(calls[0]!.aborted).toBe(true);
    expect(ctx.attempts.map((a) => [a.status, a.errorType])).toEqual([
      [408, "timeout"],
      [200, undefined],
    ]);
    expect((await eventsOf(outcome)).map((e) => e.type)).toEqual(textStream.map((e) => e.type));
  });

  test("a stall after output ends the stream with an in-band 524 timeout and aborts the upstream", async () => {
    let signal: AbortSignal | undefined;
    const stalls = fakeAdapter({
      stream: async (call) => {
        signal = call.signal;
        return hangingAfter(textStream.slice(0, 3))(call);
      },
    });
    const ctx = setup([stalls, fakeAdapter()], true, { idleTimeoutMs: 60 });
    const outcome = await walk(ctx);
    const out = await eventsOf(outcome);
    const last = out.at(-1) as Extract<StreamEvent, { type: "error" }>;
    expect(out.map((e) => e.type)).toEqual(["start", "text-start", "text-delta", "error"]);
    expect([last.error.type, last.error.status]).toEqual(["timeout", 524]);
    expect(signal!.aborted).toBe(true);
  });

  test("a client that goes away mid-stream stops the upstream; the turn is still metered, once", async () => {
    const upstream = closingUpstream();
    const ctx = setup([upstream.adapter], true);
    const outcome = (await walk(ctx)) as StreamOutcome;
    const iterator = outcome.events[Symbol.asyncIterator]();
    for (let i = 0; i < 4; i++) await iterator.next(); // start, text-start, text-delta, usage
    await iterator.return?.();
    await Bun.sleep(0); // the upstream is released off the client's path
    expect(upstream.closed).toBe(true);
    expect([ctx.bill.finishedTurns, ctx.bill.usage.output.total, ctx.bill.ending.finish]).toEqual([1, 1, "aborted"]);
    // Endpoint health and statistics are not blamed for the client going away.
    expect(ctx.deps.routing.health.stateOf(profileOf(ctx.candidates[0]!).key)).toBe("closed");
  });

  test("a stream abandoned unread (client gone before the first frame) stops the upstream and meters what it had sent, once", async () => {
    const upstream = closingUpstream();
    const ctx = setup([upstream.adapter], true);
    const outcome = (await walk(ctx)) as StreamOutcome;
    outcome.abandon();
    outcome.abandon();
    await Bun.sleep(0);
    expect(upstream.adapter.calls[0]!.signal.aborted).toBe(true);
    expect(upstream.closed).toBe(true);
    // The events read before the first output (start, text-start, text-delta) are what it had sent.
    expect([ctx.bill.finishedTurns, ctx.bill.ending.finish, ctx.firstTokenMs !== undefined]).toEqual([1, "aborted", true]);
    expect(await drain(outcome.events)).toEqual([]);
    expect(ctx.deps.routing.health.stateOf(profileOf(ctx.candidates[0]!).key)).toBe("closed");
  });

  test("a stream still walking when abandoned abandons the stream the walk hands on later", async () => {
    const gate = Promise.withResolvers<void>();
    const upstream = closingUpstream(gate.promise);
    const ctx = setup([upstream.adapter], true, {}, 10);
    const outcome = (await walk(ctx)) as StreamOutcome;
    outcome.abandon();
    gate.resolve();
    await Bun.sleep(10);
    expect(upstream.closed).toBe(true);
    expect(ctx.bill.finishedTurns).toBe(1);
  });

  test("a slow reader is not an idle upstream: pauses between pulls do not trip the idle timeout", async () => {
    const ctx = setup([fakeAdapter({ stream: events(textStream) })], true, { idleTimeoutMs: 30 });
    const outcome = await walk(ctx);
    const out: StreamEvent[] = [];
    for await (const event of (outcome as StreamOutcome).events) {
      out.push(event);
      await Bun.sleep(60);
    }
    expect(out.map((e) => e.type)).toEqual(textStream.map((e) => e.type));
  });
});

describe("refusals", () => {
  const refusalStream = (): Promise<EventStream> =>
    Promise.resolve(
      replay<StreamEvent>([
        { type: "start", id: "u1", model: "a", provider: "p0", created: 1 },
        { type: "refusal-delta", id: "r1", delta: "I can't help with that." },
        { type: "finish", finish: { reason: "refusal", raw: "refusal" } },
      ]),
    );

  test("a whole result that refused moves on to the next model", async () => {
    const first = fakeAdapter({ generate: () => Promise.resolve(response({ finish: { reason: "refusal", raw: "refusal" } })) });
    const second = fakeAdapter();
    const ctx = setup([first, second]);
    const outcome = await walk(ctx);
    expect(first.calls.length).toBe(1);
    expect(second.calls.length).toBe(1);
    expect(ctx.served?.model.id).toBe("acme/b");
    expect(ctx.attempts.map((a) => a.errorType ?? null)).toEqual(["refusal", null]);
  });

  test("a stream whose first output is a refusal moves on before the client sees a byte", async () => {
    const first = fakeAdapter({ stream: refusalStream });
    const second = fakeAdapter({ stream: () => Promise.resolve(replay<StreamEvent>([{ type: "text-delta", id: "t", delta: "hi" }, { type: "finish", finish: { reason: "stop" } }])) });
    const ctx = setup([first, second], true);
    const outcome = await walk(ctx);
    expect(second.calls.length).toBe(1);
    const events = outcome.kind === "stream" ? await drain(outcome.events) : [];
    expect(events.some((e) => e.type === "refusal-delta")).toBe(false);
    expect(events.some((e) => e.type === "text-delta")).toBe(true);
  });

  test("with no other model left, a refusal is returned as is", async () => {
    const refusing = fakeAdapter({ generate: () => Promise.resolve(response({ finish: { reason: "content_filter" } })) });
    const ctx = setup([refusing]);
    const outcome = await walk(ctx);
    expect(ctx.served?.model.id).toBe("acme/a");
    expect(outcome.kind === "response" && outcome.response.finish.reason).toBe("content_filter");
  });
});

describe("the turn's outcome", () => {
  test("a whole response is metered at the endpoint that served it; the walk records that endpoint", async () => {
    const ctx = setup([fakeAdapter({ generate: () => Promise.reject(retryable()) }), fakeAdapter({ generate: async () => response({ usage: usageOf(3, 1) }) })]);
    const turn: Walk = { request: ctx.request, route: { candidates: ctx.candidates, state: plainRoute(ctx) } };
    const outcome = await callWithFallbacks(ctx, turn);
    expect(ctx.served).toBe(ctx.candidates[1]);
    // modelB's default prices: 1e-6 per prompt token, 2e-6 per completion token.
    const cost = { total: 0.000005, input: 0.000003, output: 0.000002, upstream: null };
    expect(responseOf(outcome).cost).toEqual(cost);
    expect([ctx.bill.finishedTurns, ctx.bill.turnCost, ctx.bill.usage.input.total, ctx.bill.ending.finish, ctx.bill.ending.status]).toEqual([1, cost, 3, "stop", 200]);
  });

  test("a stream still walking at the keep-alive point is handed on at once; its events follow when an endpoint serves", async () => {
    const gate = Promise.withResolvers<never>();
    const second = fakeAdapter({ stream: events(textStream) });
    const ctx = setup([fakeAdapter({ stream: () => gate.promise }), second], true, {}, 20);
    const outcome = await walk(ctx);
    // Handed on while the first endpoint has not answered yet (the client gets the headers and keep-alives).
    expect(outcome.kind).toBe("stream");
    expect(second.calls).toHaveLength(0);
    gate.reject(retryable());
    const out = await eventsOf(outcome);
    expect(out.map((e) => e.type)).toEqual(textStream.map((e) => e.type));
    expect(ctx.served).toBe(ctx.candidates[1]);
    // The walk's own stream was metered: the turn is on the bill once it ended.
    expect([ctx.bill.finishedTurns, ctx.bill.usage.output.total]).toEqual([1, 1]);
  });

  test("a walk that fails after the keep-alive point ends the stream with an in-band error, recorded as the turn's ending", async () => {
    const gate = Promise.withResolvers<never>();
    const ctx = setup([fakeAdapter({ stream: () => gate.promise })], true, {}, 20);
    const outcome = await walk(ctx);
    gate.reject(new GatewayError("context_length_exceeded", "too long"));
    const out = await eventsOf(outcome);
    expect(out).toHaveLength(1);
    const only = out[0] as Extract<StreamEvent, { type: "error" }>;
    expect([only.type, only.error.type, only.error.status]).toEqual(["error", "context_length_exceeded", 400]);
    expect([ctx.bill.ending.finish, ctx.bill.ending.status, ctx.bill.ending.errorType]).toEqual(["error", 400, "context_length_exceeded"]);
  });
});
