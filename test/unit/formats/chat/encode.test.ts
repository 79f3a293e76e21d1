/** encodeChat: canonical response → chat.completion body (spec "Chat-completions result body"). */
import { describe, expect, test } from "bun:test";
import { GatewayError } from "../../../../core/errors.ts";
import { encodeChat } from "../../../../core/formats/chat/encode.ts";
import type { CanonicalResponse } from "../../../../core/model/response.ts";
import { emptyUsage } from "../../../../core/model/usage.ts";
import { chatContext } from "./helpers.ts";

/** A tool-calling turn of a reasoning model, shaped like a real upstream reply. */
const response: CanonicalResponse = {
  id: "msg_01upstream",
  model: "anthropic/claude-sonnet-4",
  provider: "Anthropic",
  created: 1_750_000_000,
  parts: [
    { type: "reasoning", text: "The user wants weather.", signature: "EqQBCkYIBx", format: "anthropic-claude-v1" },
    { type: "text", text: "Let me check ", annotations: [{ type: "url_citation", url_citation: { url: "https://w.example" } }] },
    { type: "text", text: "both cities." },
    { type: "tool-call", id: "toolu_01", name: "get_weather", arguments: '{"city":"Paris"}' },
    { type: "tool-call", id: "toolu_02", name: "get_weather", arguments: '{"city":"Rome"}' },
  ],
  finish: { reason: "tool_calls", raw: "tool_use" },
  usage: {
    input: { total: 1200, cacheRead: 1000, cacheWrite: 100 },
    output: { total: 80, reasoning: 20 },
    serverTools: { web_search_requests: 1 },
  },
  cost: { total: 0.0042, input: 0.003, output: 0.0012, upstream: null },
  serviceTier: "standard",
  systemFingerprint: "fp_abc",
  warnings: [],
};

describe("encodeChat", () => {
  test("renders the full chat.completion shape", () => {
    const body = encodeChat(response, chatContext({ metadata: { attempt: 1, strategy: "direct" } }));
    expect(body).toEqual({
      id: "gen-123",
      object: "chat.completion",
      created: 1_750_000_000,
      model: "anthropic/claude-sonnet-4",
      provider: "Anthropic",
      service_tier: "standard",
      system_fingerprint: "fp_abc",
      choices: [
        {
          index: 0,
          finish_reason: "tool_calls",
          native_finish_reason: "tool_use",
          logprobs: null,
          message: {
            role: "assistant",
            content: "Let me check both cities.",
            refusal: null,
            reasoning: "The user wants weather.",
            reasoning_details: [
              { type: "reasoning.text", text: "The user wants weather.", signature: "EqQBCkYIBx", format: "anthropic-claude-v1", index: 0 },
            ],
            tool_calls: [
              { id: "toolu_01", index: 0, type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
              { id: "toolu_02", index: 1, type: "function", function: { name: "get_weather", arguments: '{"city":"Rome"}' } },
            ],
            annotations: [{ type: "url_citation", url_citation: { url: "https://w.example" } }],
          },
        },
      ],
      usage: {
        prompt_tokens: 1200,
        completion_tokens: 80,
        total_tokens: 1280,
        prompt_tokens_details: { cached_tokens: 1000, cache_write_tokens: 100, audio_tokens: 0, file_tokens: 0, video_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 20, audio_tokens: 0, image_tokens: 0 },
        server_tool_use: { web_search_requests: 1, web_fetch_requests: 0 },
        server_tool_use_details: { tool_calls_requested: 0, tool_calls_executed: 0, web_search_requests: 1 },
        cost: 0.0042,
        cost_details: {
          upstream_inference_cost: null,
          upstream_inference_prompt_cost: 0.003,
          upstream_inference_completions_cost: 0.0012,
        },
      },
      service_metadata: { attempt: 1, strategy: "direct" },
    });
  });

  test("content is null when only tool calls; no optional keys when absent", () => {
    const body = encodeChat(
      { ...response, parts: [{ type: "tool-call", id: "c1", name: "f", arguments: "{}" }], cost: undefined, serviceTier: undefined, systemFingerprint: undefined },
      chatContext(),
    );
    const message = body.choices[0]?.message;
    expect(message).toEqual({
      role: "assistant",
      content: null,
      refusal: null,
      reasoning: null,
      tool_calls: [{ id: "c1", index: 0, type: "function", function: { name: "f", arguments: "{}" } }],
    });
    expect(body.service_tier).toBeNull();
    expect(body.system_fingerprint).toBeNull();
    expect(body.usage).not.toHaveProperty("cost");
    expect(body).not.toHaveProperty("service_metadata");
  });

  test("summary, encrypted and redacted reasoning become detail items; refusal and logprobs render", () => {
    const body = encodeChat(
      {
        ...response,
        parts: [
          { type: "reasoning", text: "", id: "rs_1", format: "openai-responses-v1", summary: ["Plan A", "Plan B"], encrypted: "gAAAA" },
          { type: "reasoning", text: "", redacted: "REDACTED", format: "anthropic-claude-v1" },
          { type: "refusal", text: "I can't help with that." },
        ],
        logprobs: [{ token: "I", logprob: -0.1, bytes: [73], top_logprobs: [] }],
        finish: { reason: "refusal", raw: "refusal" },
      },
      chatContext(),
    );
    const choice = body.choices[0];
    expect(choice?.finish_reason).toBe("content_filter");
    expect(choice?.native_finish_reason).toBe("refusal");
    expect(choice?.logprobs).toEqual({ content: [{ token: "I", logprob: -0.1, bytes: [73], top_logprobs: [] }], refusal: null });
    expect(choice?.message).toEqual({
      role: "assistant",
      content: null,
      refusal: "I can't help with that.",
      reasoning: "Plan APlan B",
      reasoning_details: [
        { type: "reasoning.summary", summary: "Plan A", id: "rs_1", format: "openai-responses-v1", index: 0 },
        { type: "reasoning.summary", summary: "Plan B", id: "rs_1", format: "openai-responses-v1", index: 1 },
        { type: "reasoning.encrypted", data: "gAAAA", id: "rs_1", format: "openai-responses-v1", index: 2 },
        { type: "reasoning.encrypted", data: "REDACTED", format: "anthropic-claude-v1", index: 3 },
      ],
    });
  });

  test("a failed response carries the in-band error object", () => {
    const error = new GatewayError("provider_unavailable", "Provider returned error", { metadata: { provider_code: "overloaded" } });
    const body = encodeChat(
      { ...response, parts: [], usage: emptyUsage(), error: { type: error.type, status: error.status, message: error.message, metadata: { provider_code: "overloaded" } }, finish: { reason: "error", raw: "error" } },
      chatContext(),
    );
    expect(body.choices[0]?.finish_reason).toBe("error");
    expect(body.error).toEqual({ code: 502, message: "Provider returned error", metadata: { provider_code: "overloaded", error_type: "provider_unavailable" } });
  });

  test("a 500 never echoes internals", () => {
    const body = encodeChat(
      { ...response, error: { type: "server", status: 500, message: "db password wrong", metadata: { stack: "…" } } },
      chatContext(),
    );
    expect(body.error).toEqual({ code: 500, message: "Internal server error", metadata: { error_type: "server" } });
  });
});
