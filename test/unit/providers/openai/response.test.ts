import { describe, expect, test } from "bun:test";
import { isGatewayError } from "../../../../core/errors.ts";
import { fromChatCompletion } from "../../../../providers/openai/response.ts";
import type { ChatCompletion } from "../../../../providers/openai/wire.ts";
import { providerCall, target } from "../helpers.ts";

const call = providerCall({ target: target({ providerId: "openai-main", upstreamModel: "gpt-4o" }) });

/** A completion as OpenAI sends it (text, cached prompt tokens, reasoning tokens). */
const textCompletion: ChatCompletion = {
  id: "chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT",
  object: "chat.completion",
  created: 1741569952,
  model: "gpt-4o-2024-08-06",
  choices: [
    {
      index: 0,
      message: { role: "assistant", content: "Hello! How can I assist you today?", refusal: null, annotations: [] },
      logprobs: null,
      finish_reason: "stop",
    },
  ],
  usage: {
    prompt_tokens: 2006,
    completion_tokens: 300,
    total_tokens: 2306,
    prompt_tokens_details: { cached_tokens: 1920 },
    completion_tokens_details: { reasoning_tokens: 128 },
  },
  service_tier: "default",
  system_fingerprint: "fp_fc9f1d7035",
};

describe("fromChatCompletion", () => {
  test("text, finish, usage with cached and reasoning tokens, identity", () => {
    const response = fromChatCompletion(textCompletion, call);
    expect(response).toEqual({
      id: "chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT",
      model: "gpt-4o-2024-08-06",
      provider: "openai-main",
      created: 1741569952,
      parts: [{ type: "text", text: "Hello! How can I assist you today?" }],
      finish: { reason: "stop", raw: "stop" },
      usage: {
        input: { total: 2006, cacheRead: 1920, cacheWrite: 0 },
        output: { total: 300, reasoning: 128 },
        raw: textCompletion.usage,
      },
      warnings: [],
      serviceTier: "default",
      systemFingerprint: "fp_fc9f1d7035",
    });
  });

  test("parallel tool calls keep ids and arguments verbatim; reasoning first, refusal last", () => {
    const response = fromChatCompletion(
      {
        id: "x",
        created: 1,
        model: "m",
        choices: [
          {
            index: 0,
            message: {
              role: "assistant",
              content: null,
              reasoning: "thinking about it",
              tool_calls: [
                { id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"location": "Paris"}' } },
                { id: "call_2", type: "function", function: { name: "get_time", arguments: '{"tz":"CET"}' } },
              ],
              refusal: "partly refused",
            },
            finish_reason: "tool_calls",
          },
        ],
      },
      call,
    );
    expect(response.parts).toEqual([
      { type: "reasoning", text: "thinking about it" },
      { type: "tool-call", id: "call_1", name: "get_weather", arguments: '{"location": "Paris"}' },
      { type: "tool-call", id: "call_2", name: "get_time", arguments: '{"tz":"CET"}' },
      { type: "refusal", text: "partly refused" },
    ]);
    expect(response.finish).toEqual({ reason: "tool_calls", raw: "tool_calls" });
  });

  test("finish reasons: unified plus raw, native_finish_reason preferred for raw", () => {
    const finish = (finish_reason: string | null, native_finish_reason?: string) =>
      fromChatCompletion({ choices: [{ index: 0, message: { content: "x" }, finish_reason, native_finish_reason }] }, call).finish;
    expect(finish("stop")).toEqual({ reason: "stop", raw: "stop" });
    expect(finish("length")).toEqual({ reason: "length", raw: "length" });
    expect(finish("function_call")).toEqual({ reason: "tool_calls", raw: "function_call" });
    expect(finish("content_filter")).toEqual({ reason: "content_filter", raw: "content_filter" });
    expect(finish("eos")).toEqual({ reason: "other", raw: "eos" });
    expect(finish("stop", "end_turn")).toEqual({ reason: "stop", raw: "end_turn" });
    expect(finish(null)).toEqual({ reason: "other" });
  });

  test("OpenRouter reasoning_details win over the duplicate reasoning text; details sharing an id merge", () => {
    const response = fromChatCompletion(
      {
        choices: [
          {
            message: {
              content: "4",
              reasoning: "2+2 is 4",
              reasoning_details: [
                { type: "reasoning.text", text: "2+2 is 4", signature: "sig", format: "anthropic-claude-v1", index: 0 },
                { type: "reasoning.summary", summary: "adds", id: "rs_1", format: "openai-responses-v1", index: 1 },
                { type: "reasoning.encrypted", data: "blob", id: "rs_1", format: "openai-responses-v1", index: 2 },
              ],
            },
            finish_reason: "stop",
          },
        ],
      },
      call,
    );
    expect(response.parts).toEqual([
      { type: "reasoning", text: "2+2 is 4", signature: "sig", format: "anthropic-claude-v1" },
      { type: "reasoning", text: "", id: "rs_1", format: "openai-responses-v1", summary: ["adds"], encrypted: "blob" },
      { type: "text", text: "4" },
    ]);
  });

  test("DeepSeek reasoning_content and prompt_cache_hit_tokens; cache_write_tokens", () => {
    const response = fromChatCompletion(
      {
        choices: [{ message: { content: "ok", reasoning_content: "hmm" }, finish_reason: "stop" }],
        usage: { prompt_tokens: 10, completion_tokens: 5, prompt_cache_hit_tokens: 6, prompt_tokens_details: { cache_write_tokens: 4 } },
      },
      call,
    );
    expect(response.parts[0]).toEqual({ type: "reasoning", text: "hmm" });
    expect(response.usage.input).toEqual({ total: 10, cacheRead: 6, cacheWrite: 4 });
  });

  test("annotations and logprobs are kept; missing identity falls back to the target", () => {
    const logprobs = [{ token: "Hi", logprob: -0.1, bytes: [72, 105], top_logprobs: [] }];
    const response = fromChatCompletion(
      { choices: [{ message: { content: "Hi", annotations: [{ type: "url_citation" }] }, logprobs: { content: logprobs }, finish_reason: "stop" }] },
      call,
    );
    expect(response.parts).toEqual([{ type: "text", text: "Hi", annotations: [{ type: "url_citation" }] }]);
    expect(response.logprobs).toEqual(logprobs);
    expect([response.model, response.id, response.created]).toEqual(["gpt-4o", "", 1_700_000_000]);
  });

  test("a tool call without an id gets a generated one", () => {
    const response = fromChatCompletion({ choices: [{ message: { tool_calls: [{ function: { name: "f", arguments: "{}" } }] }, finish_reason: "tool_calls" }] }, providerCall());
    expect(response.parts).toEqual([{ type: "tool-call", id: "call_1", name: "f", arguments: "{}" }]);
  });

  test("a 200 carrying an error object throws the mapped error", () => {
    let thrown: unknown;
    try {
      fromChatCompletion({ error: { code: 429, message: "Rate limit exceeded upstream" } }, call);
    } catch (e) {
      thrown = e;
    }
    expect(isGatewayError(thrown) && [thrown.type, thrown.status]).toEqual(["rate_limit_exceeded", 429]);
  });
});
