/** providers/bedrock/response.ts and finish-usage.ts: a Converse reply → canonical response. */
import { describe, expect, test } from "bun:test";
import { fromConverseResponse } from "../../../../providers/bedrock/response.ts";
import { canonicalRequest, providerCall } from "../helpers.ts";
import { CLAUDE, endpointFor, LLAMA, OLD_CLAUDE } from "./support.ts";

const usage = { inputTokens: 250, outputTokens: 50, totalTokens: 2150, cacheReadInputTokens: 1800, cacheWriteInputTokens: 50 };

describe("fromConverseResponse", () => {
  test("text, signed and redacted reasoning, a tool call, usage with cache counters, the service tier", () => {
    const call = providerCall();
    const response = fromConverseResponse(
      {
        output: {
          message: {
            role: "assistant",
            content: [
              { reasoningContent: { reasoningText: { text: "Think.", signature: "EqSig" } } },
              { reasoningContent: { redactedContent: "EmwK" } },
              { text: "Checking." },
              { toolUse: { toolUseId: "tooluse_1", name: "get_weather", input: { city: "Paris" } } },
            ],
          },
        },
        stopReason: "tool_use",
        usage,
        serviceTier: { type: "priority" },
      },
      "req-9",
      call,
      endpointFor(CLAUDE),
    );
    expect(response).toMatchObject({
      id: "req-9",
      model: "upstream-model",
      provider: "test-provider",
      serviceTier: "priority",
      finish: { reason: "tool_calls", raw: "tool_use" },
      usage: { input: { total: 2100, cacheRead: 1800, cacheWrite: 50 }, output: { total: 50, reasoning: 0 } },
    });
    expect(response.parts).toEqual([
      { type: "reasoning", text: "Think.", signature: "EqSig", format: "anthropic-claude-v1" },
      { type: "reasoning", text: "", redacted: "EmwK", format: "anthropic-claude-v1" },
      { type: "text", text: "Checking." },
      { type: "tool-call", id: "tooluse_1", name: "get_weather", arguments: '{"city":"Paris"}' },
    ]);
  });

  test.each([
    ["end_turn", "stop"],
    ["stop_sequence", "stop"],
    ["max_tokens", "length"],
    ["guardrail_intervened", "content_filter"],
    ["content_filtered", "content_filter"],
    ["model_context_window_exceeded", "context_window"],
    ["malformed_tool_use", "other"],
  ])("stopReason %s → %s (raw kept)", (stopReason, reason) => {
    const response = fromConverseResponse({ output: { message: { content: [{ text: "x" }] } }, stopReason, usage }, null, providerCall(), endpointFor(CLAUDE));
    expect(response.finish).toEqual({ reason: reason as never, raw: stopReason });
  });

  test("the forced JSON answer's tool input is the answer's text", () => {
    const call = providerCall({ request: canonicalRequest({ output: { format: { type: "json_schema", name: "w", schema: { type: "object" } } } }) });
    const response = fromConverseResponse(
      { output: { message: { content: [{ toolUse: { toolUseId: "tooluse_2", name: "json_answer", input: { city: "Paris" } } }] } }, stopReason: "tool_use", usage },
      null,
      call,
      endpointFor(OLD_CLAUDE),
    );
    expect(response.parts).toEqual([{ type: "text", text: '{"city":"Paris"}' }]);
    expect(response.finish).toEqual({ reason: "stop", raw: "end_turn" });
  });

  test("another model's reasoning is tagged Bedrock's; an unknown block is dropped with a warning", () => {
    const call = providerCall();
    const response = fromConverseResponse(
      { output: { message: { content: [{ reasoningContent: { reasoningText: { text: "hmm" } } }, { video: { format: "mp4" } }, { text: "ok" }] } }, stopReason: "end_turn" },
      null,
      call,
      endpointFor(LLAMA),
    );
    expect(response.parts).toEqual([
      { type: "reasoning", text: "hmm", format: "amazon-bedrock-v1" },
      { type: "text", text: "ok" },
    ]);
    expect(response.usage.input.total).toBe(0);
    expect(call.request.warnings.map((w) => w.field)).toEqual(["content.video"]);
  });

  test("a reply without an output message is a retryable 502, never an empty answer", () => {
    expect(() => fromConverseResponse({ hello: "world" } as never, null, providerCall(), endpointFor(CLAUDE))).toThrow(expect.objectContaining({ status: 502, retryable: true }));
  });
});
