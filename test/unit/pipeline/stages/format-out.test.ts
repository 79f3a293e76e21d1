/** core/pipeline/stages/format-out.ts: JSON, SSE or the error envelope, plus the one request log line. */
import { describe, expect, test } from "bun:test";
import { GatewayError } from "../../../../core/errors.ts";
import { formatOutStage } from "../../../../core/pipeline/stages/format-out.ts";
import { canonicalRequest, endpointOf, modelConfig, providerConfig, replay, response, stubNext, testContext, type StreamEvent } from "../helpers.ts";

const requestLines = (ctx: ReturnType<typeof testContext>) => ctx.deps.logger.calls.filter((c) => c.msg === "request");

describe("format-out stage", () => {
  test("a response is encoded by the request's format as JSON with the generation id header, and logged once", async () => {
    const ctx = testContext();
    ctx.log.model = "acme/a";
    await formatOutStage.run(
      ctx,
      stubNext(() => {
        ctx.deps.clock.advance(25);
        ctx.outcome = { kind: "response", response: response({ parts: [{ type: "text", text: "hello" }] }) };
      }),
    );
    expect(ctx.http?.status).toBe(200);
    expect(ctx.http?.headers.get("content-type")).toBe("application/json");
    expect(ctx.http?.headers.get("x-generation-id")).toBe("gen-test");
    expect(await ctx.http?.json()).toEqual({ encoded: "gen-test", text: "hello", cost: null });
    const lines = requestLines(ctx);
    expect(lines).toHaveLength(1);
    expect(lines[0]!.obj).toEqual({ model: "acme/a", id: "gen-test", format: "chat", status: 200, stream: false, latency_ms: 25 });
  });

  test("service metadata is offered to the encoder only when the client opted in", async () => {
    const model = modelConfig("acme/a");
    const ctx = testContext({ metadataOptIn: true });
    ctx.candidates = [endpointOf(model, providerConfig("acme", [model]))];
    await formatOutStage.run(
      ctx,
      stubNext(() => {
        ctx.served = ctx.candidates[0];
        ctx.attempts.push({ model: "acme/a", providerId: "acme", startedAt: 0, status: 200 });
        ctx.outcome = { kind: "response", response: response() };
      }),
    );
    const body = (await ctx.http?.json()) as { service_metadata?: { summary: string } };
    expect(body.service_metadata?.summary).toBe("Routed to acme for acme/a");

    const plain = testContext();
    await formatOutStage.run(plain, stubNext(() => void (plain.outcome = { kind: "response", response: response() })));
    expect(await plain.http?.json()).not.toHaveProperty("service_metadata");
  });

  test("an error becomes the envelope with its status, the generation id header, and a log line", async () => {
    const ctx = testContext();
    await formatOutStage.run(ctx, () => Promise.reject(new GatewayError("rate_limit_exceeded", "slow down", { retryAfter: 1.2, metadata: { limit: 5 } })));
    expect(ctx.http?.status).toBe(429);
    expect(ctx.http?.headers.get("retry-after")).toBe("2");
    expect(ctx.http?.headers.get("x-generation-id")).toBe("gen-test");
    expect(await ctx.http?.json()).toEqual({
      error: { code: 429, message: "slow down", metadata: { limit: 5, error_type: "rate_limit_exceeded" } },
      service_metadata: null,
      user_id: null,
    });
    expect(ctx.log.error_type).toBe("rate_limit_exceeded");
    expect(requestLines(ctx).map((l) => l.obj.status)).toEqual([429]);
    expect(ctx.deps.logger.calls.filter((c) => c.level === "error")).toHaveLength(0);
  });

  test("an unexpected failure is a 500 with no internals; the cause is logged server-side", async () => {
    const ctx = testContext({ metadataOptIn: true });
    const bug = new Error("ECONNREFUSED 10.1.2.3:5432 password=hunter2");
    await formatOutStage.run(ctx, () => Promise.reject(bug));
    expect(ctx.http?.status).toBe(500);
    const text = await ctx.http!.text();
    expect(text).not.toContain("hunter2");
    expect(JSON.parse(text)).toEqual({ error: { code: 500, message: "Internal server error", metadata: { error_type: "server" } }, service_metadata: null, user_id: null });
    const logged = ctx.deps.logger.calls.find((c) => c.level === "error");
    expect(logged?.obj.err).toBe(bug);
  });

  test("opted-in error replies carry service metadata only for an authenticated caller", async () => {
    const ctx = testContext({ metadataOptIn: true });
    await formatOutStage.run(ctx, () => Promise.reject(new GatewayError("provider_unavailable", "all down")));
    const body = (await ctx.http?.json()) as { service_metadata: { attempt: number } | null };
    expect(body.service_metadata?.attempt).toBe(0);

    const anonymous = testContext({ metadataOptIn: true, principal: undefined });
    await formatOutStage.run(anonymous, () => Promise.reject(new GatewayError("authentication", "no key")));
    expect(((await anonymous.http?.json()) as { service_metadata: unknown }).service_metadata).toBeNull();
  });

  test("a stream is relayed as SSE in the format's frames, logged when it closes", async () => {
    const ctx = testContext({ request: canonicalRequest({ stream: true }) });
    const events: StreamEvent[] = [
      { type: "text-delta", id: "t", delta: "a" },
      { type: "finish", finish: { reason: "stop" } },
    ];
    await formatOutStage.run(ctx, stubNext(() => void (ctx.outcome = { kind: "stream", events: replay(events) })));
    expect(ctx.http?.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(ctx.http?.headers.get("x-generation-id")).toBe("gen-test");
    expect(requestLines(ctx)).toHaveLength(0);
    expect(await ctx.http!.text()).toBe("data: text-delta\n\ndata: finish\n\ndata: [DONE]\n\n");
    expect(requestLines(ctx)).toHaveLength(1);
    expect(requestLines(ctx)[0]!.obj).toMatchObject({ status: 200, stream: true });
  });

  test("finishing without an outcome is a programming error answered as a 500 envelope, never a crash", async () => {
    const ctx = testContext();
    await formatOutStage.run(ctx, stubNext());
    expect(ctx.http!.status).toBe(500);
    expect(ctx.http!.headers.get("x-generation-id")).toBe(ctx.generationId);
    const body = (await ctx.http!.json()) as { error: { message: string } };
    expect(body.error.message).toBe("Internal server error");
  });
});
