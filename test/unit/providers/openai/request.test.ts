import { describe, expect, test } from "bun:test";
import type { CanonicalRequest } from "../../../../core/model/request.ts";
import { toChatBody } from "../../../../providers/openai/request.ts";
import { canonicalRequest, target } from "../helpers.ts";

/** System, multi-turn, an image, a tool call and its result, tools and sampling: the everyday chat request. */
function fixture(): CanonicalRequest {
  return canonicalRequest({
    system: [{ type: "text", text: "You are terse." }, { type: "text", text: "Answer in English." }],
    messages: [
      {
        role: "user",
        parts: [
          { type: "text", text: "What is in this picture, and what's the weather there?" },
          { type: "image", url: "https://example.com/cat.png", detail: "low" },
        ],
      },
      {
        role: "assistant",
        parts: [
          { type: "reasoning", text: "Need the weather tool.", signature: "sig-1", format: "anthropic-claude-v1" },
          { type: "text", text: "A cat. Checking the weather." },
          { type: "tool-call", id: "call_abc", name: "get_weather", arguments: '{"city": "Paris"}' },
        ],
      },
      { role: "tool", parts: [{ type: "tool-result", callId: "call_abc", content: '{"temp":21}' }] },
      { role: "user", parts: [{ type: "text", text: "Thanks!" }], name: "alice" },
    ],
    tools: [
      {
        kind: "function",
        name: "get_weather",
        description: "Weather by city",
        parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
        strict: true,
      },
    ],
    toolChoice: { type: "auto" },
    parallelToolCalls: false,
    sampling: { temperature: 0.2, topP: 0.9, seed: 42, stop: ["END"], frequencyPenalty: 0.1, logprobs: true, topLogprobs: 2 },
    maxTokens: 256,
    output: { format: { type: "json_schema", name: "answer", schema: { type: "object" }, strict: true } },
    reasoning: { effort: "low" },
    user: "user-1",
    metadata: { run: "7" },
    serviceTier: "flex",
  });
}

describe("toChatBody", () => {
  test("translates the everyday request exactly", () => {
    const request = fixture();
    const body = toChatBody(request, target({ upstreamModel: "gpt-test" }), false);
    expect(body).toEqual({
      model: "gpt-test",
      messages: [
        { role: "system", content: "You are terse.\n\nAnswer in English." },
        {
          role: "user",
          content: [
            { type: "text", text: "What is in this picture, and what's the weather there?" },
            { type: "image_url", image_url: { url: "https://example.com/cat.png", detail: "low" } },
          ],
        },
        {
          role: "assistant",
          content: "A cat. Checking the weather.",
          reasoning: "Need the weather tool.",
          reasoning_details: [{ type: "reasoning.text", text: "Need the weather tool.", signature: "sig-1", format: "anthropic-claude-v1", index: 0 }],
          tool_calls: [{ id: "call_abc", type: "function", function: { name: "get_weather", arguments: '{"city": "Paris"}' } }],
        },
        { role: "tool", tool_call_id: "call_abc", content: '{"temp":21}' },
        { role: "user", content: "Thanks!", name: "alice" },
      ],
      tools: [
        {
          type: "function",
          function: {
            name: "get_weather",
            description: "Weather by city",
            parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
            strict: true,
          },
        },
      ],
      tool_choice: "auto",
      parallel_tool_calls: false,
      temperature: 0.2,
      top_p: 0.9,
      frequency_penalty: 0.1,
      seed: 42,
      stop: ["END"],
      logprobs: true,
      top_logprobs: 2,
      max_completion_tokens: 256,
      response_format: { type: "json_schema", json_schema: { name: "answer", schema: { type: "object" }, strict: true } },
      reasoning_effort: "low",
      user: "user-1",
      metadata: { run: "7" },
      service_tier: "flex",
    });
    expect(request.warnings).toEqual([]);
  });

  test("streaming always asks for usage", () => {
    const body = toChatBody(canonicalRequest({ includeUsage: false }), target(), true);
    expect(body.stream).toBe(true);
    expect(body.stream_options).toEqual({ include_usage: true });
  });

  test("max_tokens_field option selects the legacy field", () => {
    const body = toChatBody(canonicalRequest({ maxTokens: 9 }), target({ options: { max_tokens_field: "max_tokens" } }), false);
    expect(body.max_tokens).toBe(9);
    expect(body.max_completion_tokens).toBeUndefined();
  });

  test("remaining sampling fields, named tool choice, json_object, verbosity, cache key", () => {
    const body = toChatBody(
      canonicalRequest({
        tools: [{ kind: "function", name: "f" }],
        toolChoice: { type: "tool", name: "f", disableParallel: true },
        sampling: { topK: 40, minP: 0.05, presencePenalty: 0.3, repetitionPenalty: 1.1, logitBias: { "50256": -100 } },
        output: { format: { type: "json_object" }, verbosity: "low" },
        cache: { promptCacheKey: "conv-1" },
        safetyIdentifier: "hashed",
      }),
      target(),
      false,
    );
    expect(body).toMatchObject({
      tools: [{ type: "function", function: { name: "f" } }],
      tool_choice: { type: "function", function: { name: "f" } },
      parallel_tool_calls: false,
      top_k: 40,
      min_p: 0.05,
      presence_penalty: 0.3,
      repetition_penalty: 1.1,
      logit_bias: { "50256": -100 },
      response_format: { type: "json_object" },
      verbosity: "low",
      prompt_cache_key: "conv-1",
      safety_identifier: "hashed",
    });
  });

  test("tool choice and parallel flag are not sent without tools; text format is the default and omitted", () => {
    const body = toChatBody(canonicalRequest({ toolChoice: { type: "none" }, parallelToolCalls: true, output: { format: { type: "text" } } }), target(), false);
    expect(body.tool_choice).toBeUndefined();
    expect(body.parallel_tool_calls).toBeUndefined();
    expect(body.response_format).toBeUndefined();
  });

  test("Messages-style tool results inside a user turn become tool messages first, in order", () => {
    const body = toChatBody(
      canonicalRequest({
        format: "messages",
        messages: [
          {
            role: "user",
            parts: [
              { type: "tool-result", callId: "a", content: [{ type: "text", text: "one" }] },
              { type: "tool-result", callId: "b", content: [{ type: "text", text: "two" }, { type: "text", text: "three" }] },
              { type: "text", text: "continue" },
            ],
          },
        ],
      }),
      target(),
      false,
    );
    expect(body.messages).toEqual([
      { role: "tool", tool_call_id: "a", content: "one" },
      { role: "tool", tool_call_id: "b", content: [{ type: "text", text: "two" }, { type: "text", text: "three" }] },
      { role: "user", content: "continue" },
    ]);
  });

  test("files: data/http URLs as file_data, anything else as file_id; assistant without text has null content", () => {
    const body = toChatBody(
      canonicalRequest({
        messages: [
          {
            role: "user",
            parts: [
              { type: "file", data: "data:application/pdf;base64,AAAA", filename: "a.pdf" },
              { type: "file", data: "file-123" },
            ],
          },
          { role: "assistant", parts: [{ type: "tool-call", id: "c1", name: "f", arguments: "{}" }] },
        ],
      }),
      target(),
      false,
    );
    expect(body.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "file", file: { file_data: "data:application/pdf;base64,AAAA", filename: "a.pdf" } },
          { type: "file", file: { file_id: "file-123" } },
        ],
      },
      { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }] },
    ]);
  });

  test("reasoning with summary and encrypted content becomes reasoning_details", () => {
    const body = toChatBody(
      canonicalRequest({
        messages: [
          { role: "assistant", parts: [{ type: "reasoning", text: "", summary: ["s1"], encrypted: "enc", id: "rs_1", format: "openai-responses-v1" }, { type: "text", text: "ok" }] },
        ],
      }),
      target(),
      false,
    );
    expect(body.messages[0]).toEqual({
      role: "assistant",
      content: "ok",
      reasoning_details: [
        { type: "reasoning.summary", summary: "s1", id: "rs_1", format: "openai-responses-v1", index: 0 },
        { type: "reasoning.encrypted", data: "enc", id: "rs_1", format: "openai-responses-v1", index: 1 },
      ],
    });
  });

  test("what chat cannot carry is a warning, once per field, never a silent drop", () => {
    const request = canonicalRequest({
      format: "messages",
      system: [{ type: "text", text: "s", cache: { type: "ephemeral" } }],
      messages: [
        { role: "user", parts: [{ type: "text", text: "a", cache: { type: "ephemeral" } }] },
        {
          role: "user",
          parts: [{ type: "tool-result", callId: "x", isError: true, content: [{ type: "image", url: "https://e/i.png" }] }],
        },
      ],
      tools: [{ kind: "server", type: "service:web_search" }, { kind: "function", name: "f" }],
      reasoning: { maxTokens: 1000, summary: "auto" },
      passthrough: { thinking: { type: "enabled" } },
    });
    const body = toChatBody(request, target(), false);
    expect(request.warnings.map((w) => w.field).sort()).toEqual(
      ["cache_control", "reasoning.max_tokens", "reasoning.summary", "thinking", "tool_result.image", "tool_result.is_error", "tools[0]"].sort(),
    );
    expect(request.warnings.every((w) => w.code === "unsupported_field")).toBe(true);
    expect(body.tools).toEqual([{ type: "function", function: { name: "f" } }]);
    expect(body.thinking).toBeUndefined();
  });

  test("chat-format passthrough extras travel as-is without overriding translated fields", () => {
    const request = canonicalRequest({ passthrough: { top_a: 0.1, model: "evil", stream: true, n: 3 } });
    const body = toChatBody(request, target({ upstreamModel: "real" }), false);
    expect(body.top_a).toBe(0.1);
    expect(body.model).toBe("real");
    expect(body.stream).toBeUndefined();
    expect(body.n).toBeUndefined();
    expect(request.warnings.map((w) => w.field)).toEqual(["model", "stream", "n"]);
  });
});
