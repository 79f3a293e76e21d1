/** core/http/envelope.ts: the one error envelope; 500s never leak internals. */
import { describe, expect, test } from "bun:test";
import { GatewayError } from "../../../core/errors.ts";
import { envelopeOf, errorResponse, jsonResponse } from "../../../core/http/envelope.ts";

const GENERIC_500 = { error: { code: 500, message: "Internal server error", metadata: { error_type: "server" } }, service_metadata: null, user_id: null };

describe("envelopeOf", () => {
  test("a client error carries its message, metadata and canonical error_type", () => {
    const error = new GatewayError("invalid_request", "temperature: must be <= 2", { metadata: { param: "temperature" } });
    expect(envelopeOf(error, { attempt: 1 }, "user-1")).toEqual({
      error: { code: 400, message: "temperature: must be <= 2", metadata: { param: "temperature", error_type: "invalid_request" } },
      service_metadata: { attempt: 1 },
      user_id: "user-1",
    });
  });

  test("error_type is always the canonical type, even if metadata tries to say otherwise", () => {
    const error = new GatewayError("not_found", "gone", { status: 410, metadata: { error_type: "expired" } });
    expect(envelopeOf(error).error).toEqual({ code: 410, message: "gone", metadata: { error_type: "not_found" } });
  });

  test("anything that is not a GatewayError is a generic 500", () => {
    const text = JSON.stringify(envelopeOf(new Error("ECONNREFUSED postgres://admin:hunter2@db")));
    expect(text).not.toContain("hunter2");
    expect(JSON.parse(text)).toEqual(GENERIC_500);
    expect(envelopeOf("string thrown")).toEqual(GENERIC_500);
  });

  test("a server error never echoes its message, metadata or service metadata", () => {
    const error = new GatewayError("server", "null deref in encoder at line 40", { metadata: { stack: "at x.ts:40" } });
    expect(envelopeOf(error, { attempt: 2, summary: "internal" }, "u")).toEqual({ ...GENERIC_500, user_id: "u" });
  });

  test("an unmapped upstream failure at 5xx hides its details too", () => {
    const error = new GatewayError("unmapped", "upstream said: <html>nginx 10.0.0.3</html>", { metadata: { raw: "<html>" } });
    expect(envelopeOf(error).error).toEqual({ code: 500, message: "Internal server error", metadata: { error_type: "unmapped" } });
    const at503 = new GatewayError("server", "pool exhausted", { status: 503 });
    expect(envelopeOf(at503).error).toEqual({ code: 503, message: "Internal server error", metadata: { error_type: "server" } });
  });

  test("provider errors at 5xx are shown (they are not internals)", () => {
    const error = new GatewayError("provider_unavailable", "Provider returned error", { metadata: { provider_name: "acme" } });
    expect(envelopeOf(error).error).toEqual({ code: 502, message: "Provider returned error", metadata: { provider_name: "acme", error_type: "provider_unavailable" } });
  });
});

describe("errorResponse / jsonResponse", () => {
  test("the status is the error's, the body the envelope, Retry-After rounded up when known", async () => {
    const error = new GatewayError("rate_limit_exceeded", "slow down", { retryAfter: 0.2 });
    const res = errorResponse(error, envelopeOf(error), { "x-generation-id": "gen-1" });
    expect(res.status).toBe(429);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(res.headers.get("retry-after")).toBe("1");
    expect(res.headers.get("x-generation-id")).toBe("gen-1");
    expect(await res.json()).toEqual(envelopeOf(error));
    expect(errorResponse(new GatewayError("not_found", "x"), envelopeOf(new GatewayError("not_found", "x"))).headers.has("retry-after")).toBe(false);
  });

  test("jsonResponse serialises with the given status and headers", async () => {
    const res = jsonResponse({ a: 1 }, 201, { "x-a": "b" });
    expect([res.status, res.headers.get("content-type"), res.headers.get("x-a")]).toEqual([201, "application/json", "b"]);
    expect(await res.json()).toEqual({ a: 1 });
    expect(jsonResponse([]).status).toBe(200);
  });
});
