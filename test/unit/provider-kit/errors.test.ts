import { describe, expect, test } from "bun:test";
import { mapUpstreamError, parseRetryAfter, upstreamErrorFields } from "../../../core/provider-kit/errors.ts";

const openaiBody = (message: string, type = "invalid_request_error", code: string | null = null) => ({ error: { message, type, param: null, code } });

describe("mapUpstreamError: status table", () => {
  const table: Array<[number, string, number, boolean]> = [
    [301, "provider_unavailable", 502, true],
    [307, "provider_unavailable", 502, true],
    [400, "invalid_request", 400, false],
    [401, "provider_unavailable", 502, true],
    [402, "payment_required", 402, true],
    [403, "provider_unavailable", 502, true],
    [404, "not_found", 404, false],
    [408, "timeout", 408, true],
    [409, "invalid_request", 400, false],
    [413, "payload_too_large", 413, false],
    [422, "unprocessable", 422, false],
    [429, "rate_limit_exceeded", 429, true],
    [500, "provider_unavailable", 502, true],
    [502, "provider_unavailable", 502, true],
    [503, "provider_unavailable", 502, true],
    [504, "timeout", 524, true],
    [524, "timeout", 524, true],
    [529, "provider_overloaded", 529, true],
    [599, "provider_unavailable", 502, true],
  ];
  for (const [status, type, mapped, retryable] of table) {
    test(`${status} → ${type} ${mapped}${retryable ? " retryable" : ""}`, () => {
      const error = mapUpstreamError(status, openaiBody("upstream says no", "some_error", "some_code"));
      expect(error.type).toBe(type as typeof error.type);
      expect(error.status).toBe(mapped);
      expect(error.retryable).toBe(retryable);
      expect(error.metadata?.provider_code).toBe("some_code");
      expect(error.metadata?.provider_status).toBe(status);
    });
  }
});

describe("mapUpstreamError: structured fields", () => {
  test("400 with code context_length_exceeded", () => {
    const error = mapUpstreamError(400, openaiBody("too long", "invalid_request_error", "context_length_exceeded"));
    expect([error.type, error.status, error.retryable]).toEqual(["context_length_exceeded", 400, false]);
    expect(error.message).toBe("too long");
    expect(error.metadata).toEqual({ provider_code: "context_length_exceeded", provider_status: 400, provider_message: "too long" });
  });

  test("llama.cpp exceed_context_size_error (type field)", () => {
    const body = { error: { code: 400, message: "the request exceeds the available context size", type: "exceed_context_size_error" } };
    expect(mapUpstreamError(400, body).type).toBe("context_length_exceeded");
  });

  test("image and content-policy codes refine a 400", () => {
    expect(mapUpstreamError(400, openaiBody("x", "invalid_request_error", "image_too_large")).type).toBe("image_too_large");
    expect(mapUpstreamError(400, openaiBody("x", "invalid_request_error", "invalid_image_url")).type).toBe("invalid_image");
    expect(mapUpstreamError(400, openaiBody("x", "invalid_request_error", "content_policy_violation")).type).toBe("content_policy_violation");
    expect(mapUpstreamError(400, openaiBody("x", "invalid_request_error", "string_above_max_length")).type).toBe("string_too_long");
  });

  test("429 insufficient_quota is the operator's billing, not a rate limit", () => {
    const error = mapUpstreamError(429, openaiBody("You exceeded your current quota", "insufficient_quota", "insufficient_quota"));
    expect([error.type, error.status, error.retryable]).toEqual(["payment_required", 402, true]);
  });

  test("Anthropic overloaded_error on a 500 is overloaded 529", () => {
    const error = mapUpstreamError(500, { type: "error", error: { type: "overloaded_error", message: "Overloaded" } });
    expect([error.type, error.status, error.retryable]).toEqual(["provider_overloaded", 529, true]);
  });

  test("only 400s without a code fall back to the context-length sentence (vLLM)", () => {
    const vllm = { object: "error", message: "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens", type: "BadRequestError", param: null, code: 400 };
    expect(mapUpstreamError(400, vllm).type).toBe("context_length_exceeded");
    expect(mapUpstreamError(422, vllm).type).toBe("unprocessable");
    expect(mapUpstreamError(400, openaiBody("context window", "invalid_request_error", "invalid_image")).type).toBe("invalid_image");
  });

  test("a 5xx code never turns into a client error", () => {
    expect(mapUpstreamError(500, openaiBody("x", "server_error", "context_length_exceeded")).type).toBe("provider_unavailable");
  });

  test("401/403 hide the upstream sentence (it can quote the operator's key)", () => {
    const error = mapUpstreamError(401, openaiBody("Incorrect API key provided: sk-proj-****abcd", "invalid_request_error", "invalid_api_key"));
    expect(error.message).toBe("Upstream provider rejected the gateway's credentials");
    expect(error.message).not.toContain("sk-");
    expect(error.metadata).toEqual({ provider_code: "invalid_api_key", provider_status: 401 });
  });

  test("OpenRouter numeric codes, text bodies and empty bodies", () => {
    expect(mapUpstreamError(429, { error: { code: 429, message: "slow down" } }).metadata?.provider_code).toBe(429);
    const html = mapUpstreamError(502, "<html>Bad Gateway</html>");
    expect(html.metadata?.provider_message).toBe("<html>Bad Gateway</html>");
    const empty = mapUpstreamError(503, undefined);
    expect(empty.message).toBe("Upstream provider returned HTTP 503");
    expect(empty.metadata?.provider_code).toBe(503);
  });

  test("uses the given factory", () => {
    let made = "";
    mapUpstreamError(404, openaiBody("nope"), new Headers(), (type, message, init) => {
      made = `${type}:${message}:${init?.status}`;
      return mapUpstreamError(404, openaiBody("nope"));
    });
    expect(made).toBe("not_found:nope:404");
  });
});

describe("Retry-After", () => {
  test("429 and 503 carry Retry-After seconds", () => {
    expect(mapUpstreamError(429, openaiBody("x"), new Headers({ "retry-after": "7" })).retryAfter).toBe(7);
    expect(mapUpstreamError(503, openaiBody("x"), new Headers({ "retry-after": "2" })).retryAfter).toBe(2);
    expect(mapUpstreamError(400, openaiBody("x"), new Headers({ "retry-after": "2" })).retryAfter).toBeUndefined();
  });

  test("parses seconds, retry-after-ms and HTTP dates; ignores garbage", () => {
    const now = Date.parse("2025-01-01T00:00:00Z");
    expect(parseRetryAfter(new Headers({ "retry-after": "1.5" }), now)).toBe(1.5);
    expect(parseRetryAfter(new Headers({ "retry-after-ms": "250", "retry-after": "9" }), now)).toBe(0.25);
    expect(parseRetryAfter(new Headers({ "retry-after": "Wed, 01 Jan 2025 00:00:30 GMT" }), now)).toBe(30);
    expect(parseRetryAfter(new Headers({ "retry-after": "soon" }), now)).toBeUndefined();
    expect(parseRetryAfter(new Headers({ "retry-after": "-3" }), now)).toBeUndefined();
    expect(parseRetryAfter(new Headers(), now)).toBeUndefined();
  });
});

describe("upstreamErrorFields", () => {
  test("reads nested, flat and string error shapes", () => {
    expect(upstreamErrorFields({ error: { message: "m", type: "t", code: "c" } })).toEqual({ message: "m", type: "t", code: "c" });
    expect(upstreamErrorFields({ message: "flat", type: "BadRequestError", code: 400 })).toEqual({ message: "flat", type: "BadRequestError", code: 400 });
    expect(upstreamErrorFields({ error: "plain string" })).toEqual({ message: "plain string", type: undefined, code: undefined });
    expect(upstreamErrorFields("x".repeat(2000)).message?.length).toBe(500);
  });
});
