import { describe, expect, test } from "bun:test";
import { GatewayError } from "../../../../core/errors.ts";
import { collect } from "../../../../core/model/collect.ts";
import type { StreamEvent } from "../../../../core/model/events.ts";
import { mapGeminiError } from "../../../../providers/gemini/errors.ts";
import { fromGeminiResponse } from "../../../../providers/gemini/response.ts";
import { geminiStreamToEvents } from "../../../../providers/gemini/stream.ts";
import { parseSse } from "../../../../core/provider-kit/sse.ts";
import { drain, providerCall, streamOf, target } from "../helpers.ts";
import { CALLS_RESPONSE, googleError, sse, TEXT_RESPONSE, TEXT_STREAM_CHUNKS } from "./fixtures.ts";

const call = () => providerCall({ target: target({ providerId: "gemini", upstreamModel: "gemini-2.5-pro" }) });
const events = (text: string, c = call()) => drain(geminiStreamToEvents(parseSse(streamOf([text])), c));
async function* replay(list: StreamEvent[]) {
  yield* list;
}

describe("gemini response", () => {
  test("thought summary + signed parallel calls → reasoning with the signature, synthesised call ids, tool_calls finish", () => {
    const response = fromGeminiResponse(CALLS_RESPONSE, call());
    expect(response).toMatchObject({ id: "mOJKaOPnFYmDz7IP4s6tgQM", model: "gemini-2.5-flash", provider: "gemini", created: 1_700_000_000 });
    expect(response.parts).toEqual([
      {
        type: "reasoning",
        text: "**Planning the lookup**\n\nI'll call the weather tool for both cities.",
        format: "google-gemini-v1",
        signature: "CiQB0e2Kb3dRh+BYdbZvmulSN2Pwwd75",
      },
      { type: "tool-call", id: "call_0", name: "get_weather", arguments: '{"location":"Paris"}' },
      { type: "tool-call", id: "call_1", name: "get_weather", arguments: '{"location":"Rome"}' },
    ]);
    expect(response.finish).toEqual({ reason: "tool_calls", raw: "STOP" });
    expect(response.usage.input).toEqual({ total: 120, cacheRead: 64, cacheWrite: 0 });
    expect(response.usage.output).toEqual({ total: 70, reasoning: 40 });
  });

  const finishes: Array<[string, string]> = [
    ["STOP", "stop"],
    ["MAX_TOKENS", "length"],
    ["SAFETY", "content_filter"],
    ["RECITATION", "content_filter"],
    ["BLOCKLIST", "content_filter"],
    ["PROHIBITED_CONTENT", "content_filter"],
    ["MALFORMED_FUNCTION_CALL", "other"],
  ];
  for (const [raw, reason] of finishes) {
    test(`finishReason ${raw} → ${reason}`, () => {
      const response = fromGeminiResponse({ candidates: [{ content: { parts: [{ text: "x" }] }, finishReason: raw }] }, call());
      expect(response.finish).toEqual({ reason: reason as never, raw });
    });
  }

  test("a blocked prompt (promptFeedback only) is a content_filter finish", () => {
    const response = fromGeminiResponse({ promptFeedback: { blockReason: "SAFETY" }, usageMetadata: { promptTokenCount: 7 } }, call());
    expect(response.parts).toEqual([]);
    expect(response.finish).toEqual({ reason: "content_filter", raw: "SAFETY" });
  });

  test("a signature on a text answer precedes the text; unsupported parts are reported", () => {
    const c = call();
    const response = fromGeminiResponse(
      { candidates: [{ content: { parts: [{ text: "Hi", thoughtSignature: "sig" }, { executableCode: { code: "print(1)" } }] }, finishReason: "STOP" }] },
      c,
    );
    expect(response.parts).toEqual([
      { type: "reasoning", text: "", format: "google-gemini-v1", signature: "sig" },
      { type: "text", text: "Hi" },
    ]);
    expect(c.request.warnings.map((w) => w.field)).toEqual(["response.executableCode"]);
  });
});

describe("gemini stream", () => {
  test("events of a thoughts-then-answer stream", async () => {
    const out = await events(sse(TEXT_STREAM_CHUNKS));
    expect(out).toEqual([
      { type: "start", id: "r-1", model: "gemini-2.5-pro", provider: "gemini", created: 1_700_000_000 },
      // The prompt count of the first chunk, reported at once.
      { type: "usage", usage: { input: { total: 10, cacheRead: 0, cacheWrite: 0 }, output: { total: 0, reasoning: 0 } } },
      { type: "reasoning-start", id: "reasoning-0", format: "google-gemini-v1" },
      { type: "reasoning-delta", id: "reasoning-0", delta: "Thinking about the question" },
      { type: "reasoning-end", id: "reasoning-0", signature: "EpoFCpcFAdHtim9" },
      { type: "text-start", id: "text-1" },
      { type: "text-delta", id: "text-1", delta: "The answer" },
      { type: "text-delta", id: "text-1", delta: " is 42." },
      { type: "text-end", id: "text-1" },
      expect.objectContaining({ type: "usage", usage: expect.objectContaining({ input: { total: 10, cacheRead: 0, cacheWrite: 0 }, output: { total: 20, reasoning: 15 } }) }),
      { type: "finish", finish: { reason: "stop", raw: "STOP" } },
    ]);
  });

  test("stream ≡ generate: collect(stream) equals the non-streamed reply", async () => {
    const streamed = await collect(replay(await events(sse(TEXT_STREAM_CHUNKS))));
    const whole = fromGeminiResponse(TEXT_RESPONSE, call());
    expect(streamed.parts).toEqual(whole.parts);
    expect(streamed.finish).toEqual(whole.finish);
    expect(streamed.usage).toEqual(whole.usage);
    const calls = await collect(replay(await events(sse([CALLS_RESPONSE]))));
    expect(calls.parts).toEqual(fromGeminiResponse(CALLS_RESPONSE, call()).parts);
  });

  test("an in-stream error chunk → mapped error event", async () => {
    const out = await events(sse([TEXT_STREAM_CHUNKS[0], googleError(503, "UNAVAILABLE", "The model is overloaded. Please try again later.")]));
    const last = out.at(-1);
    // Google reports an overload as 503 UNAVAILABLE "The model is overloaded": an overload (529).
    expect(last).toMatchObject({ type: "error", error: { type: "provider_overloaded", status: 529, retryable: true } });
  });

  test("a stream that ends without a finish reason is reported as cut", async () => {
    const out = await events(sse(TEXT_STREAM_CHUNKS.slice(0, 2)));
    expect(out.at(-1)).toMatchObject({ type: "error", error: { type: "provider_unavailable", status: 502 } });
  });
});

describe("gemini error mapping", () => {
  const make = (type: ConstructorParameters<typeof GatewayError>[0], message: string, init?: ConstructorParameters<typeof GatewayError>[2]) => new GatewayError(type, message, init);
  const cases: Array<[number, Record<string, unknown>, string, number]> = [
    [400, googleError(400, "INVALID_ARGUMENT", "Invalid JSON payload received."), "invalid_request", 400],
    [400, googleError(400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.", "API_KEY_INVALID"), "provider_unavailable", 502],
    [400, googleError(400, "FAILED_PRECONDITION", "User location is not supported for the API use."), "provider_unavailable", 502],
    [400, googleError(400, "INVALID_ARGUMENT", "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."), "context_length_exceeded", 400],
    [403, googleError(403, "PERMISSION_DENIED", "Permission denied."), "provider_unavailable", 502],
    [404, googleError(404, "NOT_FOUND", "models/gemini-9 is not found."), "not_found", 404],
    [429, googleError(429, "RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota)."), "rate_limit_exceeded", 429],
    [500, googleError(500, "INTERNAL", "An internal error has occurred."), "provider_unavailable", 502],
    [503, googleError(503, "UNAVAILABLE", "The model is overloaded."), "provider_overloaded", 529],
    [503, googleError(503, "UNAVAILABLE", "The service is currently unavailable."), "provider_unavailable", 502],
    [504, googleError(504, "DEADLINE_EXCEEDED", "Deadline expired."), "timeout", 524],
  ];
  for (const [status, body, type, mapped] of cases) {
    const error = (body.error as { status: string }).status;
    test(`HTTP ${status} ${error} → ${type} ${mapped}`, () => {
      const result = mapGeminiError(status, body, new Headers(), make);
      expect(result.type).toBe(type as never);
      expect(result.status).toBe(mapped);
    });
  }

  test("provider_code is Google's status string", () => {
    expect(mapGeminiError(429, googleError(429, "RESOURCE_EXHAUSTED", "x"), new Headers({ "retry-after": "3" }), make)).toMatchObject({
      metadata: { provider_code: "RESOURCE_EXHAUSTED", provider_status: 429 },
      retryAfter: 3,
    });
  });
});
