/** core/http/render.ts: JSON, SSE or the error envelope, plus the one request log line. */
import { describe, expect, test } from "bun:test";
import { GatewayError } from "../../../core/errors.ts";
import { render, renderError, respond } from "../../../core/http/render.ts";
import { responseOutcome, streamOutcome } from "../../../core/pipeline/outcome.ts";
import { compose } from "../../../core/pipeline/stage.ts";
import { canonicalRequest, endpointOf, fakeFormat, modelConfig, providerConfig, replay, response, testContext, type StreamEvent } from "../pipeline/helpers.ts";

const requestLines = (ctx: ReturnType<typeof testContext>) => ctx.deps.logger.calls.filter((c) => c.msg === "request");

describe("respond / render / renderError", () => {
  test("a response is encoded by the request's format as JSON with the generation id header, and logged once", async () => {
    const ctx = testContext();
    ctx.log.model = "acme/a";
    const http = await respond(
      ctx,
      (async () => {
        ctx.deps.clock.advance(25);
        return responseOutcome(response({ parts: [{ type: "text", text: "hello" }] }));
      })(),
    );
    expect(http.status).toBe(200);
    expect(http.headers.get("content-type")).toBe("application/json");
    expect(http.headers.get("x-generation-id")).toBe("gen-test");
    expect(await http.json()).toEqual({ encoded: "gen-test", text: "hello", cost: null });
    const lines = requestLines(ctx);
    expect(lines).toHaveLength(1);
    expect(lines[0]!.obj).toEqual({ model: "acme/a", id: "gen-test", format: "chat", status: 200, stream: false, latency_ms: 25 });
  });

  test("service metadata is offered to the encoder only when the client opted in", async () => {
    const model = modelConfig("acme/a");
    const ctx = testContext({ metadataOptIn: true });
    ctx.candidates = [endpointOf(model, providerConfig("acme", [model]))];
    ctx.served = ctx.candidates[0];
    ctx.attempts.push({ model: "acme/a", providerId: "acme", startedAt: 0, status: 200 });
    const http = render(ctx, responseOutcome(response()));
    const body = (await http.json()) as { service_metadata?: { summary: string } };
    expect(body.service_metadata?.summary).toBe("Routed to acme for acme/a");

    const plain = testContext();
    expect(await render(plain, responseOutcome(response())).json()).not.toHaveProperty("service_metadata");
  });

  test("an error becomes the envelope with its status, the generation id header, and a log line", async () => {
    const ctx = testContext();
    const http = await respond(ctx, Promise.reject(new GatewayError("rate_limit_exceeded", "slow down", { retryAfter: 1.2, metadata: { limit: 5 } })));
    expect(http.status).toBe(429);
    expect(http.headers.get("retry-after")).toBe("2");
    expect(http.headers.get("x-generation-id")).toBe("gen-test");
    expect(await http.json()).toEqual({
      error: { code: 429, message: "slow down", metadata: { limit: 5, error_type: "rate_limit_exceeded" } },
      service_metadata: null,
      user_id: null,
    });
    expect(ctx.log.error_type).toBe("rate_limit_exceeded");
    expect(requestLines(ctx).map((l) => l.obj.status)).toEqual([429]);
    expect(ctx.deps.logger.calls.filter((c) => c.level === "error")).toHaveLength(0);
  });

  test("a gateway-issued 429 carries the reply headers (X-RateLimit-*) the limits stage set", async () => {
    const ctx = testContext();
    ctx.replyHeaders = { "x-ratelimit-limit": "1", "x-ratelimit-remaining": "0" };
    const http = renderError(ctx, new GatewayError("rate_limit_exceeded", "slow down"));
    expect([http.status, http.headers.get("x-ratelimit-limit"), http.headers.get("x-ratelimit-remaining")]).toEqual([429, "1", "0"]);
    expect(http.headers.get("x-generation-id")).toBe("gen-test");
  });

  test("an unexpected failure is a 500 with no internals; the cause is logged server-side", async () => {
    const ctx = testContext({ metadataOptIn: true });
    const bug = new Error("ECONNREFUSED 10.1.2.3:5432 password=hunter2");
    const http = await respond(ctx, Promise.reject(bug));
    expect(http.status).toBe(500);
    const text = await http.text();
    expect(text).not.toContain("hunter2");
    expect(JSON.parse(text)).toEqual({ error: { code: 500, message: "Internal server error", metadata: { error_type: "server" } }, service_metadata: null, user_id: null });
    const logged = ctx.deps.logger.calls.find((c) => c.level === "error");
    expect(logged?.obj.err).toBe(bug);
  });

  test("an encoder that throws still becomes the envelope with the generation id, logged once", async () => {
    const ctx = testContext({
      format: {
        ...fakeFormat,
        encode: () => {
          throw new TypeError("encoder bug");
        },
      },
    });
    const http = await respond(ctx, Promise.resolve(responseOutcome(response())));
    expect([http.status, http.headers.get("x-generation-id")]).toEqual([500, "gen-test"]);
    expect(requestLines(ctx).map((l) => l.obj.status)).toEqual([500]);
  });

  test("opted-in error replies carry service metadata only for an authenticated caller", async () => {
    const ctx = testContext({ metadataOptIn: true });
    const http = await respond(ctx, Promise.reject(new GatewayError("provider_unavailable", "all down")));
    const body = (await http.json()) as { service_metadata: { attempt: number } | null };
    expect(body.service_metadata?.attempt).toBe(0);

    const anonymous = testContext({ metadataOptIn: true, principal: undefined });
    const denied = await respond(anonymous, Promise.reject(new GatewayError("authentication", "no key")));
    expect(((await denied.json()) as { service_metadata: unknown }).service_metadata).toBeNull();
  });

  test("a stream is relayed as SSE in the format's frames, logged when it closes", async () => {
    const ctx = testContext({ request: canonicalRequest({ stream: true }) });
    const events: StreamEvent[] = [
      { type: "text-delta", id: "t", delta: "a" },
      { type: "finish", finish: { reason: "stop" } },
    ];
    const http = await respond(ctx, Promise.resolve(streamOutcome(replay(events))));
    expect(http.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(http.headers.get("x-generation-id")).toBe("gen-test");
    expect(requestLines(ctx)).toHaveLength(0);
    expect(await http.text()).toBe("data: text-delta\n\ndata: finish\n\ndata: [DONE]\n\n");
    expect(requestLines(ctx)).toHaveLength(1);
    expect(requestLines(ctx)[0]!.obj).toMatchObject({ status: 200, stream: true });
  });

  test("a stream the client never read (gone before the first frame) is abandoned: its source released, observers ended once", async () => {
    const ctx = testContext({ request: canonicalRequest({ stream: true }) });
    let released = 0;
    const outcome = streamOutcome(replay([{ type: "finish", finish: { reason: "stop" } }]), () => void released++);
    const ends: string[] = [];
    outcome.observe({ event: (e) => e, fail: () => {}, end: () => void ends.push("end") });
    const http = await respond(ctx, Promise.resolve(outcome));
    await http.body!.cancel();
    expect([released, ends]).toEqual([1, ["end"]]);
    expect(requestLines(ctx)).toHaveLength(1);
    // Nothing runs twice, and the abandoned events are never produced afterwards.
    outcome.abandon();
    expect([released, ends]).toEqual([1, ["end"]]);
    expect(await Array.fromAsync(outcome.events)).toEqual([]);
  });

  test("a pipeline that ends without an outcome is a programming error answered as a 500 envelope, never a crash", async () => {
    const ctx = testContext();
    const http = await respond(ctx, compose([{ name: "last", run: (_c, next) => next() }])(ctx));
    expect(http.status).toBe(500);
    expect(http.headers.get("x-generation-id")).toBe(ctx.generationId);
    const body = (await http.json()) as { error: { message: string } };
    expect(body.error.message).toBe("Internal server error");
  });
});
