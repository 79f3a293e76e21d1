/** Responses result → canonical response. */
import { describe, expect, test } from "bun:test";
import { isGatewayError } from "../../../../core/errors.ts";
import { fromResponsesResult } from "../../../../providers/openai-responses/response.ts";
import type { WireResponse } from "../../../../providers/openai-responses/wire.ts";
import { providerCall } from "../helpers.ts";
import { CALL_ID, ENCRYPTED, IDS, RESULT_FAILED, RESULT_INCOMPLETE, RESULT_TOOLS } from "./fixtures.ts";

describe("fromResponsesResult", () => {
  test("a completed tool-calling result: parts in order, finish tool_calls, usage with cache and reasoning", () => {
    const response = fromResponsesResult(RESULT_TOOLS as WireResponse, providerCall());
    expect(response).toEqual({
      id: IDS.RESPONSE_ID,
      model: "gpt-5-2025-08-07",
      provider: "test-provider",
      created: 1755189700,
      completed: 1755189703,
      parts: [
        {
          type: "reasoning",
          text: "",
          format: "openai-responses-v1",
          summary: ["**Planning the lookup**\n\nThe user wants Paris weather.", "**Calling the tool**"],
          id: IDS.REASONING_ID,
          encrypted: ENCRYPTED,
        },
        { type: "text", text: "Let me check." },
        { type: "tool-call", id: CALL_ID, name: "get_weather", arguments: '{"city":"Paris"}', itemId: IDS.CALL_ITEM_ID },
      ],
      finish: { reason: "tool_calls", raw: "completed" },
      usage: { input: { total: 328, cacheRead: 256, cacheWrite: 0 }, output: { total: 87, reasoning: 64 }, raw: RESULT_TOOLS.usage },
      serviceTier: "default",
      warnings: [],
    });
  });

  test("incomplete by max_output_tokens → finish length", () => {
    const response = fromResponsesResult(RESULT_INCOMPLETE as WireResponse, providerCall());
    expect(response.finish).toEqual({ reason: "length", raw: "max_output_tokens" });
    expect(response.parts).toEqual([{ type: "text", text: "Once upon a" }]);
    expect(response.completed).toBeUndefined();
  });

  test("a plain completed answer → finish stop; refusal, annotations, logprobs kept", () => {
    const body: WireResponse = {
      id: "resp_1",
      status: "completed",
      output: [
        {
          id: "msg_1",
          type: "message",
          content: [
            { type: "output_text", text: "A", annotations: [{ type: "url_citation", url: "https://x.test" }], logprobs: [{ token: "A", logprob: -0.1, bytes: [65], top_logprobs: [] }] },
            { type: "refusal", refusal: "no" },
          ],
        },
        { id: "rs_2", type: "reasoning", summary: [], content: [{ type: "reasoning_text", text: "raw" }] },
      ],
    };
    const response = fromResponsesResult(body, providerCall());
    expect(response.finish).toEqual({ reason: "stop", raw: "completed" });
    expect(response.parts).toEqual([
      { type: "text", text: "A", annotations: [{ type: "url_citation", url: "https://x.test" }] },
      { type: "refusal", text: "no" },
      { type: "reasoning", text: "raw", format: "openai-responses-v1", id: "rs_2" },
    ]);
    expect(response.logprobs).toEqual([{ token: "A", logprob: -0.1, bytes: [65], top_logprobs: [] }]);
    expect(response.usage.input.total).toBe(0);
  });

  test("hosted-tool output items are reported as warnings", () => {
    const response = fromResponsesResult({ status: "completed", output: [{ id: "fs_1", type: "file_search_call", status: "completed" }] }, providerCall());
    expect(response.parts).toEqual([]);
    expect(response.warnings).toEqual([{ code: "unsupported_output", field: "output[0]", message: expect.stringContaining("file_search_call") }]);
  });

  test("a failed result is thrown as the mapped GatewayError", () => {
    let thrown: unknown;
    try {
      fromResponsesResult(RESULT_FAILED as WireResponse, providerCall());
    } catch (error) {
      thrown = error;
    }
    expect(isGatewayError(thrown)).toBe(true);
    if (!isGatewayError(thrown)) return;
    expect(thrown.type).toBe("rate_limit_exceeded");
    expect(thrown.status).toBe(429);
    expect(thrown.retryable).toBe(true);
    expect(thrown.message).toBe("Rate limit reached for requests");
  });

  test("a canonical error_type from a gateway of our kind is kept", () => {
    try {
      fromResponsesResult({ status: "failed", error: { code: "server_error", message: "ctx" }, error_type: "context_length_exceeded" }, providerCall());
      throw new Error("no throw");
    } catch (error) {
      expect(isGatewayError(error) && error.type).toBe("context_length_exceeded");
    }
  });
});
