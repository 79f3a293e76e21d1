import { describe, expect, test } from "bun:test";
import { GatewayError } from "../../../../core/errors.ts";
import { mapAnthropicError } from "../../../../providers/anthropic/errors.ts";
import { errorBody } from "./fixtures.ts";

const make = (type: ConstructorParameters<typeof GatewayError>[0], message: string, init?: ConstructorParameters<typeof GatewayError>[2]) => new GatewayError(type, message, init);

describe("anthropic error mapping", () => {
  const cases: Array<[number, string, string, number, boolean]> = [
    [400, "invalid_request_error", "invalid_request", 400, false],
    [401, "authentication_error", "provider_unavailable", 502, true],
    [403, "permission_error", "provider_unavailable", 502, true],
    [404, "not_found_error", "not_found", 404, false],
    [413, "request_too_large", "payload_too_large", 413, false],
    [429, "rate_limit_error", "rate_limit_exceeded", 429, true],
    [500, "api_error", "provider_unavailable", 502, true],
    [529, "overloaded_error", "provider_overloaded", 529, true],
    [500, "overloaded_error", "provider_overloaded", 529, true],
  ];
  for (const [status, anthropicType, type, mappedStatus, retryable] of cases) {
    test(`HTTP ${status} ${anthropicType} → ${type} ${mappedStatus}`, () => {
      const error = mapAnthropicError(status, errorBody(anthropicType, "msg"), new Headers(), make);
      expect(error.type).toBe(type as never);
      expect(error.status).toBe(mappedStatus);
      expect(error.retryable).toBe(retryable);
      expect(error.metadata?.provider_code).toBe(anthropicType);
    });
  }

  test("in-stream error events (no HTTP status) map by their type", () => {
    expect(mapAnthropicError(200, errorBody("rate_limit_error", "slow"), new Headers(), make).type).toBe("rate_limit_exceeded");
    expect(mapAnthropicError(200, errorBody("overloaded_error", "Overloaded"), new Headers(), make).status).toBe(529);
    expect(mapAnthropicError(200, errorBody("mystery_error", "?"), new Headers(), make).type).toBe("provider_unavailable");
  });

  test("prompt too long → context_length_exceeded", () => {
    const error = mapAnthropicError(400, errorBody("invalid_request_error", "prompt is too long: 213455 tokens > 200000 maximum"), new Headers(), make);
    expect(error.type).toBe("context_length_exceeded");
    expect(error.status).toBe(400);
  });

  test("Retry-After is kept on rate limits", () => {
    const error = mapAnthropicError(429, errorBody("rate_limit_error", "slow"), new Headers({ "retry-after": "12" }), make);
    expect(error.retryAfter).toBe(12);
  });
});
