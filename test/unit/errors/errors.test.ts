/** core/errors.ts: the exhaustive error table, the branded class and the converters. */
import { describe, expect, test } from "bun:test";
import { DEFAULT_STATUS, ERROR_TYPES, GatewayError, errors, isErrorType, isGatewayError, toGatewayError } from "../../../core/errors.ts";

describe("error table", () => {
  test("every spec error_type has exactly one default status and nothing else is in the table", () => {
    expect(Object.keys(DEFAULT_STATUS).sort()).toEqual([...ERROR_TYPES].sort());
    expect(new Set(ERROR_TYPES).size).toBe(ERROR_TYPES.length);
    // The spec's list (service-interface.md "Errors"), pinned so a rename or drop is noticed.
    expect(ERROR_TYPES).toHaveLength(27);
  });

  test("every default status is an HTTP error status", () => {
    for (const type of ERROR_TYPES) {
      const status = DEFAULT_STATUS[type];
      expect(status).toBeGreaterThanOrEqual(400);
      expect(status).toBeLessThan(600);
    }
  });

  test("statuses the spec names map to the matching type", () => {
    expect(DEFAULT_STATUS.invalid_request).toBe(400);
    expect(DEFAULT_STATUS.authentication).toBe(401);
    expect(DEFAULT_STATUS.payment_required).toBe(402);
    expect(DEFAULT_STATUS.permission_denied).toBe(403);
    expect(DEFAULT_STATUS.not_found).toBe(404);
    expect(DEFAULT_STATUS.timeout).toBe(408);
    expect(DEFAULT_STATUS.precondition_failed).toBe(409);
    expect(DEFAULT_STATUS.payload_too_large).toBe(413);
    expect(DEFAULT_STATUS.unprocessable).toBe(422);
    expect(DEFAULT_STATUS.rate_limit_exceeded).toBe(429);
    expect(DEFAULT_STATUS.server).toBe(500);
    expect(DEFAULT_STATUS.provider_unavailable).toBe(502);
    expect(DEFAULT_STATUS.provider_overloaded).toBe(529);
  });
});

describe("GatewayError", () => {
  test("takes the table's status unless one is given", () => {
    const plain = new GatewayError("rate_limit_exceeded", "slow down");
    expect(plain.status).toBe(429);
    expect(plain.retryable).toBe(false);
    expect(plain.metadata).toBeUndefined();
    expect(plain.retryAfter).toBeUndefined();
    expect(plain.message).toBe("slow down");
    expect(plain.name).toBe("GatewayError");
    expect(plain).toBeInstanceOf(Error);

    const explicit = new GatewayError("not_found", "expired", { status: 410, metadata: { batch: "b1" }, retryable: true, retryAfter: 2.5 });
    expect(explicit.status).toBe(410);
    expect(explicit.type).toBe("not_found");
    expect(explicit.metadata).toEqual({ batch: "b1" });
    expect(explicit.retryable).toBe(true);
    expect(explicit.retryAfter).toBe(2.5);
  });

  test("keeps the cause only when one is given", () => {
    const inner = new Error("inner");
    expect(new GatewayError("server", "x", { cause: inner }).cause).toBe(inner);
    expect("cause" in new GatewayError("server", "x")).toBe(false);
  });
});

describe("isGatewayError", () => {
  test("recognises our errors and a third-party copy carrying the global brand", () => {
    expect(isGatewayError(new GatewayError("server", "x"))).toBe(true);
    // A module outside the binary has its own copy of the class; only the Symbol.for brand is shared.
    const foreign = Object.assign(new Error("copy"), { [Symbol.for("inference-gateway.error")]: true, type: "timeout", status: 408 });
    expect(isGatewayError(foreign)).toBe(true);
  });

  test("rejects look-alikes without the brand", () => {
    expect(isGatewayError(new Error("x"))).toBe(false);
    expect(isGatewayError({ type: "server", status: 500, message: "x" })).toBe(false);
    expect(isGatewayError({ [Symbol.for("inference-gateway.error")]: "yes" })).toBe(false);
    expect(isGatewayError({ [Symbol("inference-gateway.error")]: true })).toBe(false);
    expect(isGatewayError(null)).toBe(false);
    expect(isGatewayError("server")).toBe(false);
  });
});

describe("toGatewayError", () => {
  test("passes gateway errors through unchanged", () => {
    const error = new GatewayError("timeout", "late");
    expect(toGatewayError(error)).toBe(error);
  });

  test("turns anything else into a generic 500 that keeps the original only as cause", () => {
    const thrown = new Error("db password hunter2");
    const converted = toGatewayError(thrown);
    expect(converted.type).toBe("server");
    expect(converted.status).toBe(500);
    expect(converted.message).toBe("Internal server error");
    expect(converted.message).not.toContain("hunter2");
    expect(converted.cause).toBe(thrown);
    expect(toGatewayError("a string").type).toBe("server");
    expect(toGatewayError(undefined).status).toBe(500);
  });
});

describe("shorthands", () => {
  test("build the right type, status and default messages", () => {
    const invalid = errors.invalid("bad temperature", { param: "temperature" });
    expect([invalid.type, invalid.status, invalid.message]).toEqual(["invalid_request", 400, "bad temperature"]);
    expect(invalid.metadata).toEqual({ param: "temperature" });
    expect(errors.invalid("no meta").metadata).toBeUndefined();

    expect([errors.unauthenticated().status, errors.unauthenticated().message]).toEqual([401, "Missing authentication header"]);
    expect(errors.unauthenticated("Invalid API key").message).toBe("Invalid API key");
    expect([errors.forbidden().type, errors.forbidden().status, errors.forbidden().message]).toEqual([
      "permission_denied",
      403,
      "Only management keys can perform this operation",
    ]);
    expect([errors.notFound().status, errors.notFound().message]).toEqual([404, "Resource not found"]);
    expect([errors.paymentRequired().type, errors.paymentRequired().status]).toEqual(["payment_required", 402]);
  });
});

describe("isErrorType", () => {
  test("accepts exactly the spec's error_type values", () => {
    for (const type of ERROR_TYPES) expect(isErrorType(type)).toBe(true);
    for (const other of ["", "Server", "rate_limit", "toString", "constructor", 429, null, undefined, {}]) expect(isErrorType(other)).toBe(false);
  });
});
