/** providers/bedrock/errors.ts: AWS error replies and stream exceptions → the gateway's statuses and error types. */
import { describe, expect, test } from "bun:test";
import { GatewayError } from "../../../../core/errors.ts";
import { errorTypeOf, mapBedrockError, streamExceptionError } from "../../../../providers/bedrock/errors.ts";

const make = (type: ConstructorParameters<typeof GatewayError>[0], message: string, init?: ConstructorParameters<typeof GatewayError>[2]) => new GatewayError(type, message, init);
const typed = (type: string) => new Headers({ "x-amzn-errortype": `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/` });

describe("mapBedrockError", () => {
  test.each([
    ["ThrottlingException", 429, "rate_limit_exceeded", 429, true],
    ["ServiceQuotaExceededException", 400, "rate_limit_exceeded", 429, true],
    ["ValidationException", 400, "invalid_request", 400, false],
    ["AccessDeniedException", 403, "provider_unavailable", 502, true],
    ["ResourceNotFoundException", 404, "not_found", 404, false],
    ["ModelTimeoutException", 408, "timeout", 524, true],
    ["ModelNotReadyException", 429, "provider_unavailable", 502, true],
    ["ModelErrorException", 424, "provider_unavailable", 502, true],
    ["InternalServerException", 500, "provider_unavailable", 502, true],
    ["ServiceUnavailableException", 503, "provider_unavailable", 502, true],
    ["ExpiredTokenException", 403, "provider_unavailable", 502, true],
  ])("%s (%d) → %s %d", (type, status, errorType, gatewayStatus, retryable) => {
    const error = mapBedrockError(status, { message: "Bedrock says no" }, typed(type), make);
    expect([error.type as string, error.status, error.retryable]).toEqual([errorType, gatewayStatus, retryable]);
    expect(error.metadata?.provider_code).toBe(type);
  });

  test("refused credentials never repeat AWS's sentence", () => {
    const error = mapBedrockError(403, { message: "The security token included in the request is invalid. AKIAEXAMPLE" }, typed("UnrecognizedClientException"), make);
    expect(error.message).toBe("Upstream provider rejected the gateway's credentials");
    expect(JSON.stringify(error.metadata)).not.toContain("AKIA");
  });

  test("throttling honours Retry-After; an over-long prompt is context_length_exceeded", () => {
    const headers = typed("ThrottlingException");
    headers.set("retry-after", "7");
    expect(mapBedrockError(429, { message: "Too many requests" }, headers, make).retryAfter).toBe(7);
    const long = mapBedrockError(400, { message: "Input is too long for requested model." }, typed("ValidationException"), make);
    expect([long.type, long.status]).toEqual(["context_length_exceeded", 400]);
  });

  test("the type from __type (namespace#Type) or the header's bare name; otherwise the status decides", () => {
    expect(errorTypeOf(new Headers(), { __type: "com.amazon.bedrock#ThrottlingException" })).toBe("ThrottlingException");
    expect(errorTypeOf(typed("ValidationException"), {})).toBe("ValidationException");
    const unknown = mapBedrockError(503, "<html>Service Unavailable</html>", new Headers(), make);
    expect([unknown.type, unknown.status]).toEqual(["provider_unavailable", 502]);
  });

  test("a stream's exception frames map as their replies do", () => {
    const throttled = streamExceptionError("throttlingException", { message: "slow down" }, make);
    expect([throttled.type, throttled.status, throttled.message]).toEqual(["rate_limit_exceeded", 429, "slow down"]);
    const unknown = streamExceptionError("someNewException", { message: "?" }, make);
    expect([unknown.type, unknown.status]).toEqual(["provider_unavailable", 502]);
  });
});
