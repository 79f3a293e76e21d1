/** core/pipeline/stages/call-with-fallbacks.ts: walking the candidates, recording attempts, never retrying a live stream. */
import { describe, expect, test } from "bun:test";
import { GatewayError } from "../../../../core/errors.ts";
import { callWithFallbacksStage } from "../../../../core/pipeline/stages/call-with-fallbacks.ts";
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
  testContext,
  type StreamEvent,
  type TestContext,
} from "../helpers.ts";

const modelA = modelConfig("acme/a");
const modelB = modelConfig("acme/b");

function setup(adapters: Array<ReturnType<typeof fakeAdapter>>, stream = false): TestContext {
  const ctx = testContext({ request: canonicalRequest({ stream, warnings: [{ code: "unknown_field", field: "foo", message: "ignored foo" }] }) });
  ctx.candidates = adapters.map((adapter, i) => {
    const model = i === 0 ? modelA : modelB;
    return endpointOf(model, providerConfig(`p${i}`, [model]), adapter);
  });
  return ctx;
}

const retryable = (status = 502) => new GatewayError("provider_unavailable", `upstream ${status}`, { status, retryable: true });

describe("call-with-fallbacks, non-streamed", () => {
  test("the first endpoint serves: response stamped with our id and the request's warnings, attempt recorded", async () => {
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
    expect(ctx.outcome?.kind).toBe("response");
    const res = (ctx.outcome as { response: ReturnType<typeof response> }).response;
    expect(res.id).toBe("gen-test");
    expect(res.warnings).toEqual([{ code: "unknown_field", field: "foo", message: "ignored foo" }]);
    expect(ctx.served).toBe(ctx.candidates[0]);
    expect(ctx.log.provider).toBe("p0");
    expect(ctx.attempts).toEqual([{ model: "acme/a", providerId: "p0", startedAt: started, endedAt: started + 40, status: 200 }]);
    expect(first.calls).toHaveLength(1);
    expect(first.calls[0]!.target).toBe(ctx.candidates[0]!.target);
    expect(first.calls[0]!.signal).toBe(ctx.signal);
    expect(first.calls[0]!.helpers).toBe(ctx.deps.helpers);
    expect(first.calls[0]!.onUpstreamBody).toBeUndefined();
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

  test("a non-retryable failure stops at once and is thrown as it is", async () => {
    const failure = new GatewayError("context_length_exceeded", "too long");
    const second = fakeAdapter();
    const ctx = setup([fakeAdapter({ generate: () => Promise.reject(failure) }), second]);
    const next = stubNext();
    expect(await callWithFallbacksStage.run(ctx, next).catch((e: unknown) => e)).toBe(failure);
    expect(second.calls).toHaveLength(0);
    expect(next.calls).toBe(0);
    expect(ctx.attempts).toHaveLength(1);
  });

  test("an adapter bug (plain Error) is never retried and becomes a 500 without internals", async () => {
    const second = fakeAdapter();
    const ctx = setup([fakeAdapter({ generate: () => Promise.reject(new TypeError("x is undefined")) }), second]);
    const error = (await callWithFallbacksStage.run(ctx, stubNext()).catch((e: unknown) => e)) as GatewayError;
    expect([error.type, error.status, error.message]).toEqual(["server", 500, "Internal server error"]);
    expect(second.calls).toHaveLength(0);
  });

  test("when every endpoint fails, the last error is thrown with every attempt listed", async () => {
    const ctx = setup([fakeAdapter({ generate: () => Promise.reject(retryable(502)) }), fakeAdapter({ generate: () => Promise.reject(new GatewayError("rate_limit_exceeded", "slow", { retryable: true, retryAfter: 3, metadata: { limit: 10 } })) })]);
    const error = (await callWithFallbacksStage.run(ctx, stubNext()).catch((e: unknown) => e)) as GatewayError;
    expect([error.type, error.status, error.message, error.retryable]).toEqual(["rate_limit_exceeded", 429, "slow", true]);
    expect(error.metadata).toEqual({
      limit: 10,
      previous_errors: [
        { provider: "p0", model: "acme/a", code: 502, error_type: "provider_unavailable" },
        { provider: "p1", model: "acme/b", code: 429, error_type: "rate_limit_exceeded" },
      ],
    });
  });

  test("no candidates is a 503", async () => {
    const error = (await callWithFallbacksStage.run(setup([]), stubNext()).catch((e: unknown) => e)) as GatewayError;
    expect([error.type, error.status]).toEqual(["provider_unavailable", 503]);
  });

  test("a client that already went away is not sent upstream", async () => {
    const adapter = fakeAdapter();
    const ctx = setup([adapter]);
    const controller = new AbortController();
    controller.abort();
    (ctx as { signal: AbortSignal }).signal = controller.signal;
    const error = (await callWithFallbacksStage.run(ctx, stubNext()).catch((e: unknown) => e)) as GatewayError;
    expect([error.type, error.status]).toEqual(["timeout", 408]);
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

describe("call-with-fallbacks, streamed", () => {
  test("the stream is handed on with our generation id on the start event", async () => {
    const events: StreamEvent[] = [
      { type: "start", id: "upstream-9", model: "acme/a", provider: "p0", created: 1 },
      { type: "text-delta", id: "t", delta: "x" },
      { type: "finish", finish: { reason: "stop" } },
    ];
    const ctx = setup([fakeAdapter({ stream: async () => replay(events) })], true);
    await callWithFallbacksStage.run(ctx, stubNext());
    expect(ctx.outcome?.kind).toBe("stream");
    const out = await drain((ctx.outcome as { events: AsyncIterable<StreamEvent> }).events);
    expect(out[0]).toEqual({ type: "start", id: "gen-test", model: "acme/a", provider: "p0", created: 1 });
    expect(out.slice(1)).toEqual(events.slice(1));
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
    const out = await drain((ctx.outcome as { events: AsyncIterable<StreamEvent> }).events);
    expect(out).toEqual([
      { type: "debug", upstreamBody: { model: "up-acme/a", stream: true } },
      { type: "finish", finish: { reason: "stop" } },
    ]);
  });

  test("a failure before the stream starts falls back; a failure inside the stream is never retried", async () => {
    const third = fakeAdapter();
    const failing: StreamEvent[] = [
      { type: "text-delta", id: "t", delta: "partial" },
      { type: "error", error: retryable() },
    ];
    const ctx = setup([fakeAdapter({ stream: () => Promise.reject(retryable()) }), fakeAdapter({ stream: async () => replay(failing) }), third], true);
    await callWithFallbacksStage.run(ctx, stubNext());
    const out = await drain((ctx.outcome as { events: AsyncIterable<StreamEvent> }).events);
    expect(out).toEqual(failing);
    expect(ctx.served).toBe(ctx.candidates[1]);
    expect(ctx.attempts.map((a) => a.status)).toEqual([502, 200]);
    expect(third.calls).toHaveLength(0);
  });
});
