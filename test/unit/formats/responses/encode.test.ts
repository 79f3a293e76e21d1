/** Canonical response → Responses result: every field of the spec's result table. */
import { describe, expect, test } from "bun:test";
import { GatewayError } from "../../../../core/errors.ts";
import { encodeResponses } from "../../../../core/formats/responses/encode.ts";
import type { CanonicalResponse } from "../../../../core/model/response.ts";
import { context, usage } from "./helpers.ts";

/** A tool-using turn as an upstream would have produced it. */
function toolTurn(overrides: Partial<CanonicalResponse> = {}): CanonicalResponse {
  return {
    id: "resp_up",
    model: "openai/gpt-5",
    provider: "OpenAI",
    created: 1_741_476_542,
    completed: 1_741_476_545,
    parts: [
      { type: "reasoning", text: "", summary: ["Need both cities."], encrypted: "gAAAAenc", id: "rs_67ccd3", format: "openai-responses-v1" },
      { type: "text", text: "Checking the weather.", annotations: [{ type: "url_citation", url: "https://x.test", start_index: 0, end_index: 4, title: "x" }] },
      { type: "tool-call", id: "call_1", name: "get_weather", arguments: '{"city":"Paris"}', itemId: "fc_67ccd4" },
      { type: "tool-call", id: "call_2", name: "get_weather", arguments: '{"city":"Rome"}' },
    ],
    finish: { reason: "tool_calls", raw: "completed" },
    usage: usage(120, 48, 64, 16),
    cost: { total: 0.0012, input: 0.0004, output: 0.0008, upstream: 0.001 },
    warnings: [],
    ...overrides,
  };
}

const requestBody = {
  instructions: "Be brief.",
  max_output_tokens: 800,
  metadata: { team: "a" },
  temperature: 0.2,
  top_p: 0.9,
  frequency_penalty: 0,
  presence_penalty: 0.1,
  parallel_tool_calls: true,
  tool_choice: "auto",
  tools: [{ type: "function", name: "get_weather", parameters: { type: "object" } }],
  service_tier: "fast",
  prompt: { id: "pmpt_1" },
  prompt_cache_options: { mode: "explicit" },
  reasoning: { effort: "low", summary: "auto" },
  text: { format: { type: "text" }, verbosity: "low" },
};

describe("encodeResponses", () => {
  test("a completed tool-using turn: every field of the result table", () => {
    const result = encodeResponses(toolTurn(), context(requestBody));
    expect(result).toEqual({
      id: "gen-1",
      object: "response",
      created_at: 1_741_476_542,
      completed_at: 1_741_476_545,
      status: "completed",
      model: "openai/gpt-5",
      output: [
        { id: "rs_67ccd3", type: "reasoning", summary: [{ type: "summary_text", text: "Need both cities." }], encrypted_content: "gAAAAenc", format: "openai-responses-v1" },
        {
          id: "msg_gw_gen-1_1",
          type: "message",
          role: "assistant",
          status: "completed",
          content: [{ type: "output_text", text: "Checking the weather.", annotations: [{ type: "url_citation", url: "https://x.test", start_index: 0, end_index: 4, title: "x" }] }],
        },
        { id: "fc_67ccd4", type: "function_call", call_id: "call_1", name: "get_weather", arguments: '{"city":"Paris"}', status: "completed" },
        { id: "fc_gw_gen-1_3", type: "function_call", call_id: "call_2", name: "get_weather", arguments: '{"city":"Rome"}', status: "completed" },
      ],
      error: null,
      incomplete_details: null,
      instructions: "Be brief.",
      max_output_tokens: 800,
      metadata: { team: "a" },
      temperature: 0.2,
      top_p: 0.9,
      frequency_penalty: 0,
      presence_penalty: 0.1,
      parallel_tool_calls: true,
      tool_choice: "auto",
      tools: [{ type: "function", name: "get_weather", parameters: { type: "object" } }],
      service_tier: "priority",
      prompt: { id: "pmpt_1" },
      prompt_cache_options: { mode: "explicit" },
      reasoning: { effort: "low", summary: "auto" },
      text: { format: { type: "text" }, verbosity: "low" },
      usage: {
        input_tokens: 120,
        input_tokens_details: { cached_tokens: 64 },
        output_tokens: 48,
        output_tokens_details: { reasoning_tokens: 16 },
        total_tokens: 168,
        cost: 0.0012,
        cost_details: { upstream_inference_cost: 0.001, upstream_inference_input_cost: 0.0004, upstream_inference_output_cost: 0.0008 },
      },
    });
  });

  test("echoes are null when the request did not send them; defaults for the non-nullable ones (text: the format OpenAI applied)", () => {
    const result = encodeResponses(toolTurn({ cost: undefined }), context());
    expect(result).toMatchObject({
      instructions: null,
      max_output_tokens: null,
      metadata: null,
      temperature: null,
      top_p: null,
      frequency_penalty: null,
      presence_penalty: null,
      parallel_tool_calls: true,
      tool_choice: "auto",
      tools: [],
      service_tier: null,
      prompt: null,
      prompt_cache_options: null,
      reasoning: null,
      text: { format: { type: "text" } },
    });
    expect(result.usage).toMatchObject({ cost: 0, cost_details: { upstream_inference_cost: null, upstream_inference_input_cost: 0, upstream_inference_output_cost: 0 } });
    expect(result).not.toHaveProperty("service_metadata");
    expect(result).not.toHaveProperty("error_type");
  });

  test("the upstream's reported service tier wins over the requested one", () => {
    expect(encodeResponses(toolTurn({ serviceTier: "default" }), context({ service_tier: "auto" })).service_tier).toBe("default");
  });

  test("finish length → status incomplete with incomplete_details.reason max_output_tokens", () => {
    const response = toolTurn({ parts: [{ type: "text", text: "Once upon a" }], finish: { reason: "length", raw: "max_output_tokens" } });
    const result = encodeResponses(response, context({ max_output_tokens: 16 }));
    expect(result.status).toBe("incomplete");
    expect(result.incomplete_details).toEqual({ reason: "max_output_tokens" });
    expect(result.output).toEqual([
      { id: "msg_gw_gen-1_0", type: "message", role: "assistant", status: "incomplete", content: [{ type: "output_text", text: "Once upon a", annotations: [] }] },
    ]);
  });

  test("a content filter stop is incomplete too", () => {
    const result = encodeResponses(toolTurn({ parts: [], finish: { reason: "content_filter" } }), context());
    expect(result.incomplete_details).toEqual({ reason: "content_filter" });
  });

  test("reasoning text (no summary: none was asked for), signature and refusal content; logprobs on the first output_text", () => {
    const response = toolTurn({
      parts: [
        { type: "reasoning", text: "thinking", signature: "sig" },
        { type: "text", text: "A" },
        { type: "refusal", text: "no" },
      ],
      finish: { reason: "stop" },
      logprobs: [{ token: "A", logprob: -0.1, bytes: [65], top_logprobs: [] }],
    });
    const result = encodeResponses(response, context());
    expect(result.output).toEqual([
      { id: "rs_gw_gen-1_0", type: "reasoning", summary: [], content: [{ type: "reasoning_text", text: "thinking" }], signature: "sig" },
      {
        id: "msg_gw_gen-1_1",
        type: "message",
        role: "assistant",
        status: "completed",
        content: [
          { type: "output_text", text: "A", annotations: [], logprobs: [{ token: "A", logprob: -0.1, bytes: [65], top_logprobs: [] }] },
          { type: "refusal", refusal: "no" },
        ],
      },
    ]);
  });

  test("reasoning text with a summary asked for (reasoning.summary): shown as the summary, not as content too", () => {
    const response = toolTurn({ parts: [{ type: "reasoning", text: "thinking", signature: "sig" }, { type: "text", text: "A" }], finish: { reason: "stop" } });
    const [item] = encodeResponses(response, context({ reasoning: { summary: "auto" } })).output as unknown[];
    expect(item).toEqual({ id: "rs_gw_gen-1_0", type: "reasoning", summary: [{ type: "summary_text", text: "thinking" }], signature: "sig" });
  });

  test("an error → status failed with error {code, message, metadata} and top-level error_type", () => {
    const error = new GatewayError("rate_limit_exceeded", "Slow down", { metadata: { provider_code: 429 } });
    const response = toolTurn({ parts: [], error: { type: error.type, message: error.message, status: error.status, metadata: { provider_code: 429 } }, finish: { reason: "error" } });
    const result = encodeResponses(response, context());
    expect(result.status).toBe("failed");
    // Terminal, so an integer like every other finished response (spec "Responses result": integer, Unix seconds).
    expect(Number.isInteger(result.completed_at)).toBe(true);
    expect(result.error).toEqual({ code: "rate_limit_exceeded", message: "Slow down", metadata: { provider_code: 429, error_type: "rate_limit_exceeded" } });
    expect(result.error_type).toBe("rate_limit_exceeded");
  });

  test("a server error keeps no internal metadata", () => {
    const response = toolTurn({ parts: [], error: { type: "server", message: "Internal server error", status: 500, metadata: { stack: "x" } } });
    expect(encodeResponses(response, context()).error).toEqual({ code: "server_error", message: "Internal server error", metadata: { error_type: "server" } });
  });

  test("service_metadata only when the client opted in", () => {
    const metadata = { attempt: 1, strategy: "direct" };
    expect(encodeResponses(toolTurn(), context({}, metadata)).service_metadata).toEqual(metadata);
  });
});
