/** core/pipeline/stages/call-with-fallbacks.ts: retries, fallbacks, timeouts, breaker, tiers; never retrying a live stream. */
import { describe, expect, test } from "bun:test";
import { DEFAULT_ROUTING, type RoutingConfig } from "../../../../core/config/routing-limits.ts";
import { GatewayError } from "../../../../core/errors.ts";
import type { EventStream } from "../../../../core/model/events.ts";
import { callWithFallbacksStage } from "../../../../core/pipeline/stages/call-with-fallbacks.ts";
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
  stubNext,
  testConfig,
  testContext,
  testDeps,
  usageOf,
  type StreamEvent,
  type TestContext,
} from "../helpers.ts";

const modelA = modelConfig("acme/a");
const modelB = modelConfig("acme/b");

function setup(adapters: Array<ReturnType<typeof fakeAdapter>>, stream = false, routing: Partial<RoutingConfig> = {}): TestContext {
  const deps = testDeps({ config: testConfig({ routing: { ...DEFAULT_ROUTING, maxRetries: 0, backoffBaseMs: 1, backoffMaxMs: 2, ...routing } }) });
  const ctx = testContext({ deps, request: canonicalRequest({ stream, warnings: [{ code: "unknown_field", field: "foo", message: "ignored foo" }] }) });
  ctx.candidates = adapters.map((adapter, i) => {
    const model = i === 0 ? modelA : modelB;
    return endpointOf(model, providerConfig(`p${i}`, [model]), adapter);
  });
  return ctx;
}

const retryable = (status = 502, init: { retryAfter?: number } = {}) =>
  new GatewayError("provider_unavailable", `upstream ${status}`, { status, retryable: true, ...init });
const events = (list: StreamEvent[]) => async () => replay(list);
const outcomeEvents = (ctx: TestContext) => drain((ctx.outcome as { events: EventStream }).events);
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

describe("non-streamed", () => {
  test("the first endpoint serves: our id, the request's warnings, the attempt recorded, the client's abort forwarded", async () => {
    const first = fakeAdapter({
      generate: async () => {
        ctx.deps.clock.advance(40);
        return response({ id: "upstream-123" });
      },
    });
    const ctx = setup([first, fakeAdapter()]);
    const next = stubNext();
    const started = ctx.deps.clock.now();
    await callWithFallbacksStage.run(ctx, next);
    expect(next.calls).toBe(1);
    const res = (ctx.outcome as { response: ReturnType<typeof response> }).response;
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
    await callWithFallbacksStage.run(ctx, stubNext());
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
    await callWithFallbacksStage.run(ctx, stubNext());
    expect(flaky.calls).toHaveLength(3);
    expect(ctx.served).toBe(ctx.candidates[0]);
    expect(ctx.attempts.map((a) => a.status)).toEqual([502, 502, 200]);
  });

  test("Retry-After within the deadline is waited for; beyond it, the next endpoint is tried at once", async () => {
    let calls = 0;
    const limited = fakeAdapter({ generate: () => (++calls === 1 ? Promise.reject(retryable(429, { retryAfter: 0.15 })) : Promise.resolve(response())) });
    const ctx = setup([limited, fakeAdapter()], false, { maxRetries: 1 });
    const started = performance.now();
    await callWithFallbacksStage.run(ctx, stubNext());
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    expect(ctx.served).toBe(ctx.candidates[0]);

    const second = fakeAdapter();
    const far = setup([fakeAdapter({ generate: () => Promise.reject(retryable(429, { retryAfter: 60 })) }), second], false, { maxRetries: 1, retryDeadlineMs: 5_000 });
    const t0 = performance.now();
    await callWithFallbacksStage.run(far, stubNext());
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
    await expect(callWithFallbacksStage.run(ctx, stubNext())).rejects.toThrow("upstream 502");
    expect(third.calls).toHaveLength(0);
  });

  test("a non-retryable failure stops at once and is thrown as it is", async () => {
    const failure = new GatewayError("context_length_exceeded", "too long");
    const second = fakeAdapter();
    const ctx = setup([fakeAdapter({ generate: () => Promise.reject(failure) }), second]);
    const next = stubNext();
    expect(await callWithFallbacksStage.run(ctx, next).catch((e: unknown) => e)).toBe(failure);
    expect(second.calls).toHaveLength(0);
    expect(next.calls).toBe(0);
  });

  test("an adapter bug (plain Error) is never retried and becomes a 500 without internals", async () => {
    const second = fakeAdapter();
    const ctx = setup([fakeAdapter({ generate: () => Promise.reject(new TypeError("x is undefined")) }), second]);
    const error = (await callWithFallbacksStage.run(ctx, stubNext()).catch((e: unknown) => e)) as GatewayError;
    expect([error.type, error.status, error.message]).toEqual(["server", 500, "Internal server error"]);
    expect(second.calls).toHaveLength(0);
  });

  test("when every endpoint fails, the last error is thrown with every attempt listed", async () => {
    const ctx = setup([
      fakeAdapter({ generate: () => Promise.reject(retryable(502)) }),
      fakeAdapter({ generate: () => Promise.reject(new GatewayError("rate_limit_exceeded", "slow", { retryable: true, retryAfter: 3, metadata: { limit: 10 } })) }),
    ]);
    const error = (await callWithFallbacksStage.run(ctx, stubNext()).catch((e: unknown) => e)) as GatewayError;
    expect([error.type, error.status, error.message, error.retryable, error.retryAfter]).toEqual(["rate_limit_exceeded", 429, "slow", true, 3]);
    expect(error.metadata).toEqual({
      limit: 10,
      previous_errors: [
        { provider: "p0", model: "acme/a", code: 502, error_type: "provider_unavailable" },
        { provider: "p1", model: "acme/b", code: 429, error_type: "rate_limit_exceeded" },
      ],
    });
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
    const ctx = setup([hung, fakeAdapter()], false, { requestTimeoutMs: 60 });
    await callWithFallbacksStage.run(ctx, stubNext());
    expect(aborted).toBe(true);
    expect(ctx.attempts.map((a) => [a.status, a.errorType])).toEqual([
      [408, "timeout"],
      [200, undefined],
    ]);
  });

  test("a failure of a later stage is not an upstream failure: no retry, no fallback", async () => {
    const second = fakeAdapter();
    const ctx = setup([fakeAdapter(), second]);
    await expect(callWithFallbacksStage.run(ctx, () => Promise.reject(new Error("post-plugin broke")))).rejects.toThrow("post-plugin broke");
    expect(second.calls).toHaveLength(0);
    expect(ctx.attempts).toHaveLength(1);
  });

  test("no candidates is a 503; a client already gone is a 408 with no upstream call", async () => {
    const error = (await callWithFallbacksStage.run(setup([]), stubNext()).catch((e: unknown) => e)) as GatewayError;
    expect([error.type, error.status]).toEqual(["provider_unavailable", 503]);
    const adapter = fakeAdapter();
    const ctx = setup([adapter]);
    const controller = new AbortController();
    controller.abort();
    (ctx as { signal: AbortSignal }).signal = controller.signal;
    const gone = (await callWithFallbacksStage.run(ctx, stubNext()).catch((e: unknown) => e)) as GatewayError;
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
    await expect(callWithFallbacksStage.run(ctx, stubNext())).rejects.toThrow("upstream 502");
    expect(second.calls).toHaveLength(0);
  });
});

describe("breaker and tiers", () => {
  test("a failure reaches the breaker (threshold 1 opens it); an open endpoint with others after it is skipped", async () => {
    const ctx = setup([fakeAdapter({ generate: () => Promise.reject(retryable()) }), fakeAdapter()], false, { maxRetries: 2, breaker: { failureThreshold: 1, failureWindowMs: 60_000, cooldownMs: 30_000 } });
    await callWithFallbacksStage.run(ctx, stubNext());
    const [first] = ctx.candidates;
    expect(ctx.deps.routing.health.stateOf(profileOf(first!).key)).toBe("open");
    const skipped = fakeAdapter();
    const again = setup([skipped, fakeAdapter()]);
    again.candidates[0] = { ...again.candidates[0]!, adapter: skipped, model: first!.model, provider: first!.provider };
    (again.deps as { routing: unknown }).routing = ctx.deps.routing;
    // A different endpoint object with the same provider and model shares the breaker (same key).
    await callWithFallbacksStage.run(again, stubNext());
    expect(skipped.calls).toHaveLength(0);
    expect(again.served).toBe(again.candidates[1]);
  });

  test("an open endpoint that is the last candidate is still tried, and its success closes the breaker", async () => {
    const only = fakeAdapter();
    const ctx = setup([only], false, { breaker: { failureThreshold: 1, failureWindowMs: 60_000, cooldownMs: 30_000 } });
    ctx.deps.routing.health.recordFailure(profileOf(ctx.candidates[0]!).key, retryable());
    await callWithFallbacksStage.run(ctx, stubNext());
    expect(only.calls).toHaveLength(1);
    expect(ctx.deps.routing.health.stateOf(profileOf(ctx.candidates[0]!).key)).toBe("closed");
  });

  test("a tier the endpoint does not offer is not forwarded; the result reports the tier used", async () => {
    const adapter = fakeAdapter();
    const ctx = setup([adapter]);
    ctx.request.serviceTier = "priority";
    ctx.route = { candidates: ctx.candidates, tiers: new Map([[ctx.candidates[0]!, "default"]]), excluded: [], cooling: new Set(), sticky: undefined };
    await callWithFallbacksStage.run(ctx, stubNext());
    expect(adapter.calls[0]!.request.serviceTier).toBeUndefined();
    expect((ctx.outcome as { response: { serviceTier?: string } }).response.serviceTier).toBe("default");
    expect(ctx.attempts[0]!.tier).toBe("default");

    const ultra = fakeAdapter();
    const u = setup([ultra]);
    u.request.serviceTier = "ultrafast";
    u.route = { candidates: u.candidates, tiers: new Map([[u.candidates[0]!, "priority"]]), excluded: [], cooling: new Set(), sticky: undefined };
    await callWithFallbacksStage.run(u, stubNext());
    expect(ultra.calls[0]!.request.serviceTier).toBe("priority");
    expect(u.request.serviceTier).toBe("ultrafast");
  });

  test("the session is pinned to the provider that served it", async () => {
    const ctx = setup([fakeAdapter()]);
    ctx.route = { candidates: ctx.candidates, tiers: new Map(), excluded: [], cooling: new Set(), sticky: { key: "sticky-key", model: "acme/a", pinned: undefined } };
    await callWithFallbacksStage.run(ctx, stubNext());
    await Bun.sleep(0);
    expect(await ctx.deps.kv.get("sticky-key")).toBe("p0");
  });
});

describe("streamed", () => {
  test("the stream is handed on with our generation id on the start event", async () => {
    const adapter = fakeAdapter({ stream: events(textStream) });
    const ctx = setup([adapter], true);
    await callWithFallbacksStage.run(ctx, stubNext());
    // A stream gets the helpers whose fetch suits a body read for minutes (the one-shot ones are Bun's fetch).
    expect(adapter.calls[0]!.helpers).toBe(ctx.deps.streamHelpers);
    expect(ctx.deps.streamHelpers).not.toBe(ctx.deps.helpers);
    const out = await outcomeEvents(ctx);
    expect(out[0]).toEqual({ type: "start", id: "gen-test", model: "acme/a", provider: "p0", created: 1 });
    expect(out.slice(1)).toEqual(textStream.slice(1));
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
    await callWithFallbacksStage.run(ctx, stubNext());
    expect(await outcomeEvents(ctx)).toEqual([
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
    await callWithFallbacksStage.run(ctx, stubNext());
    expect(await outcomeEvents(ctx)).toEqual(failing);
    expect(ctx.served).toBe(ctx.candidates[2]);
    expect(ctx.attempts.map((a) => a.status)).toEqual([502, 502, 200]);
    expect(fourth.calls).toHaveLength(0);
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
    await callWithFallbacksStage.run(ctx, stubNext());
    expect(calls[0]!.aborted).toBe(true);
    expect(ctx.attempts.map((a) => [a.status, a.errorType])).toEqual([
      [408, "timeout"],
      [200, undefined],
    ]);
    expect((await outcomeEvents(ctx)).map((e) => e.type)).toEqual(textStream.map((e) => e.type));
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
    await callWithFallbacksStage.run(ctx, stubNext());
    const out = await outcomeEvents(ctx);
    const last = out.at(-1) as Extract<StreamEvent, { type: "error" }>;
    expect(out.map((e) => e.type)).toEqual(["start", "text-start", "text-delta", "error"]);
    expect([last.error.type, last.error.status]).toEqual(["timeout", 524]);
    expect(signal!.aborted).toBe(true);
  });

  test("a slow reader is not an idle upstream: pauses between pulls do not trip the idle timeout", async () => {
    const ctx = setup([fakeAdapter({ stream: events(textStream) })], true, { idleTimeoutMs: 30 });
    await callWithFallbacksStage.run(ctx, stubNext());
    const out: StreamEvent[] = [];
    for await (const event of (ctx.outcome as { events: EventStream }).events) {
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
    await callWithFallbacksStage.run(ctx, stubNext());
    expect(first.calls.length).toBe(1);
    expect(second.calls.length).toBe(1);
    expect(ctx.served?.model.id).toBe("acme/b");
    expect(ctx.attempts.map((a) => a.errorType ?? null)).toEqual(["refusal", null]);
  });

  test("a stream whose first output is a refusal moves on before the client sees a byte", async () => {
    const first = fakeAdapter({ stream: refusalStream });
    const second = fakeAdapter({ stream: () => Promise.resolve(replay<StreamEvent>([{ type: "text-delta", id: "t", delta: "hi" }, { type: "finish", finish: { reason: "stop" } }])) });
    const ctx = setup([first, second], true);
    await callWithFallbacksStage.run(ctx, stubNext());
    expect(second.calls.length).toBe(1);
    const events = ctx.outcome?.kind === "stream" ? await drain(ctx.outcome.events) : [];
    expect(events.some((e) => e.type === "refusal-delta")).toBe(false);
    expect(events.some((e) => e.type === "text-delta")).toBe(true);
  });

  test("with no other model left, a refusal is returned as is", async () => {
    const refusing = fakeAdapter({ generate: () => Promise.resolve(response({ finish: { reason: "content_filter" } })) });
    const ctx = setup([refusing]);
    await callWithFallbacksStage.run(ctx, stubNext());
    expect(ctx.served?.model.id).toBe("acme/a");
    expect(ctx.outcome?.kind === "response" && ctx.outcome.response.finish.reason).toBe("content_filter");
  });
});
