import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { isGatewayError, type GatewayError } from "../../../core/errors.ts";
import { bearerHeaders, postJson, readJson, readJsonObject, streamBody } from "../../../core/provider-kit/http.ts";
import { fakeHelpers, providerCall } from "../providers/helpers.ts";

let server: ReturnType<typeof Bun.serve>;
let base = "";

beforeAll(() => {
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: async (req) => {
      const path = new URL(req.url).pathname;
      if (path === "/echo") return Response.json({ headers: Object.fromEntries(req.headers), body: await req.json() });
      if (path === "/429") return Response.json({ error: { message: "slow", type: "rate_limit", code: "rate_limit_exceeded" } }, { status: 429, headers: { "retry-after": "3" } });
      if (path === "/not-json") return new Response("{oops", { headers: { "content-type": "application/json" } });
      if (path === "/slow") {
        await Bun.sleep(2000);
        return new Response("late");
      }
      return new Response("nope", { status: 404 });
    },
  });
  base = `http://127.0.0.1:${server.port}`;
});

afterAll(() => server.stop(true));

describe("postJson", () => {
  test("POSTs JSON with the given headers and resolves the 2xx Response unread", async () => {
    const response = await postJson(providerCall(), `${base}/echo`, { hello: "world" }, { authorization: "Bearer k", "x-extra": "1" });
    const echoed = (await response.json()) as { headers: Record<string, string>; body: unknown };
    expect(echoed.body).toEqual({ hello: "world" });
    expect(echoed.headers["content-type"]).toBe("application/json");
    expect(echoed.headers.authorization).toBe("Bearer k");
    expect(echoed.headers["x-extra"]).toBe("1");
  });

  test("uses call.helpers.fetch", async () => {
    let seen = "";
    const helpers = fakeHelpers({
      fetch: Object.assign(async (input: string | URL | Request) => {
        seen = String(input);
        return new Response("{}");
      }, { preconnect: () => undefined }) as typeof fetch,
    });
    await postJson(providerCall({ helpers }), "http://upstream.invalid/x", {}, {});
    expect(seen).toBe("http://upstream.invalid/x");
  });

  test("a non-2xx reply throws the mapped error with Retry-After", async () => {
    const error = await postJson(providerCall(), `${base}/429`, {}, {}).catch((e: unknown) => e);
    expect(isGatewayError(error)).toBe(true);
    if (!isGatewayError(error)) return;
    expect([error.type, error.status, error.retryable, error.retryAfter]).toEqual(["rate_limit_exceeded", 429, true, 3]);
    expect(error.metadata?.provider_code).toBe("rate_limit_exceeded");
  });

  test("a non-JSON error body still maps by status", async () => {
    const error = await postJson(providerCall(), `${base}/missing`, {}, {}).catch((e: unknown) => e);
    expect(isGatewayError(error) && [error.type, error.message]).toEqual(["not_found", "nope"]);
  });

  test("connection refused → provider_unavailable 502 retryable", async () => {
    const error = await postJson(providerCall(), "http://127.0.0.1:1/v1", {}, {}).catch((e: unknown) => e);
    expect(isGatewayError(error) && [error.type, error.status, error.retryable, error.metadata?.provider_code]).toEqual([
      "provider_unavailable",
      502,
      true,
      "ECONNREFUSED",
    ]);
  });

  test("a client abort is rethrown as-is", async () => {
    const controller = new AbortController();
    const reason = new Error("client went away");
    setTimeout(() => controller.abort(reason), 20);
    const error = await postJson(providerCall({ signal: controller.signal }), `${base}/slow`, {}, {}).catch((e: unknown) => e);
    expect(error).toBe(reason);
  });

  test("a GatewayError abort reason is rethrown as that error", async () => {
    const controller = new AbortController();
    const reason = fakeHelpers().error("timeout", "deadline", { status: 408 });
    setTimeout(() => controller.abort(reason), 20);
    const error = await postJson(providerCall({ signal: controller.signal }), `${base}/slow`, {}, {}).catch((e: unknown) => e);
    expect(error).toBe(reason);
  });

  test("a timed-out signal → timeout 408", async () => {
    const error = await postJson(providerCall({ signal: AbortSignal.timeout(20) }), `${base}/slow`, {}, {}).catch((e: unknown) => e);
    expect(isGatewayError(error) && [error.type, error.status, error.retryable]).toEqual(["timeout", 408, false]);
  });
});

describe("readJson", () => {
  test("invalid JSON on a 2xx → provider_unavailable 502", async () => {
    const call = providerCall();
    const response = await postJson(call, `${base}/not-json`, {}, {});
    const error = await readJson(call, response).catch((e: unknown) => e);
    expect(isGatewayError(error) && [error.type, error.status, error.retryable]).toEqual(["provider_unavailable", 502, true]);
  });
});

describe("reply helpers shared by every adapter", () => {
  test("readJsonObject accepts an object and refuses arrays and scalars with a retryable 502", async () => {
    const call = providerCall();
    expect(await readJsonObject<{ a: number }>(call, Response.json({ a: 1 }))).toEqual({ a: 1 });
    for (const body of [[1], 5, "x", null]) {
      const error = (await readJsonObject(call, Response.json(body)).catch((e: unknown) => e)) as GatewayError;
      expect(error.status).toBe(502);
      expect(error.retryable).toBe(true);
    }
  });

  test("streamBody refuses a reply without a body", () => {
    expect(() => streamBody(providerCall(), new Response(null))).toThrow("empty stream");
    expect(streamBody(providerCall(), new Response("data: x\n\n"))).toBeInstanceOf(ReadableStream);
  });

  test("bearerHeaders sends the key and lets the target's headers override", () => {
    const call = providerCall();
    call.target = { ...call.target, apiKey: "sk-up", headers: { "x-team": "r" } };
    expect(bearerHeaders(call)).toEqual({ authorization: "Bearer sk-up", "x-team": "r" });
    call.target = { ...call.target, apiKey: undefined, headers: { authorization: "api-key z" } };
    expect(bearerHeaders(call)).toEqual({ authorization: "api-key z" });
  });
});
