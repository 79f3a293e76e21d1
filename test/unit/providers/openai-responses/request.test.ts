/** Canonical request → Responses request body: what is sent, and what becomes a warning. */
import { describe, expect, test } from "bun:test";
import { toResponsesBody } from "../../../../providers/openai-responses/request.ts";
import { decodeResponses } from "../../../../core/formats/responses/decode.ts";
import { canonicalRequest, target } from "../helpers.ts";
import { CALL_ID, ENCRYPTED, IDS } from "./fixtures.ts";

describe("toResponsesBody", () => {
  test("a Responses request round-trips with high fidelity (decode → body)", () => {
    const request = decodeResponses(
      {
        model: "openai/gpt-5",
        instructions: "Be brief.",
        input: [
          { role: "developer", content: "Use metric units." },
          { role: "user", content: [{ type: "input_text", text: "Weather?" }, { type: "input_image", image_url: "https://x.test/a.png", detail: "low" }] },
          { id: IDS.REASONING_ID, type: "reasoning", summary: [{ type: "summary_text", text: "Plan." }], encrypted_content: ENCRYPTED },
          { id: IDS.MESSAGE_ID, type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "Let me check.", annotations: [] }] },
          { id: IDS.CALL_ITEM_ID, type: "function_call", call_id: CALL_ID, name: "get_weather", arguments: '{"city":"Paris"}' },
          { type: "function_call_output", call_id: CALL_ID, output: '{"temp":18}' },
        ],
        tools: [{ type: "function", name: "get_weather", parameters: { type: "object" }, async: true, defer_loading: false }],
        tool_choice: "required",
        parallel_tool_calls: false,
        max_output_tokens: 500,
        temperature: 0.5,
        top_p: 0.9,
        top_logprobs: 2,
        reasoning: { effort: "low", summary: "auto", context: "all_turns" },
        text: { format: { type: "json_schema", name: "w", schema: { type: "object" }, strict: true }, verbosity: "low" },
        metadata: { team: "a" },
        user: "u-1",
        safety_identifier: "end-user",
        service_tier: "fast",
        prompt_cache_key: "pck",
        include: ["file_search_call.results"],
        truncation: "auto",
        prompt: { id: "pmpt_1" },
        stream: true,
      },
      new Headers(),
    );
    const body = toResponsesBody(request, target({ upstreamModel: "gpt-5-2025-08-07" }), true);
    expect(body).toEqual({
      model: "gpt-5-2025-08-07",
      instructions: "Be brief.\n\nUse metric units.",
      input: [
        { role: "user", content: [{ type: "input_text", text: "Weather?" }, { type: "input_image", image_url: "https://x.test/a.png", detail: "low" }] },
        { type: "reasoning", id: IDS.REASONING_ID, summary: [{ type: "summary_text", text: "Plan." }], encrypted_content: ENCRYPTED },
        { role: "assistant", content: [{ type: "output_text", text: "Let me check.", annotations: [] }] },
        { type: "function_call", call_id: CALL_ID, name: "get_weather", arguments: '{"city":"Paris"}', id: IDS.CALL_ITEM_ID },
        { type: "function_call_output", call_id: CALL_ID, output: '{"temp":18}' },
      ],
      store: false,
      stream: true,
      tools: [{ type: "function", name: "get_weather", parameters: { type: "object" }, async: true, defer_loading: false }],
      tool_choice: "required",
      parallel_tool_calls: false,
      max_output_tokens: 500,
      temperature: 0.5,
      top_p: 0.9,
      top_logprobs: 2,
      text: { format: { type: "json_schema", name: "w", schema: { type: "object" }, strict: true }, verbosity: "low" },
      reasoning: { effort: "low", summary: "auto", context: "all_turns" },
      include: ["reasoning.encrypted_content", "file_search_call.results"],
      metadata: { team: "a" },
      user: "u-1",
      safety_identifier: request.safetyIdentifier,
      service_tier: "priority",
      prompt_cache_key: "pck",
      // No `prompt`: it names the gateway's own template (rendered at the edge), never one of OpenAI's.
      truncation: "auto",
    });
    expect(body.safety_identifier).toMatch(/^[0-9a-f]{64}$/);
    expect(request.warnings).toEqual([]);
  });

  test("non-streaming calls omit stream; store is always false", () => {
    const body = toResponsesBody(canonicalRequest(), target(), false);
    expect(body).toEqual({ model: "upstream-model", input: [{ role: "user", content: [{ type: "input_text", text: "Hello there" }] }], store: false });
  });

  test("tools from chat/messages default to strict: false (Responses defaults to strict)", () => {
    const chat = toResponsesBody(canonicalRequest({ format: "chat", tools: [{ kind: "function", name: "f" }] }), target(), false);
    expect(chat.tools).toEqual([{ type: "function", name: "f", strict: false }]);
    const responses = toResponsesBody(canonicalRequest({ format: "responses", tools: [{ kind: "function", name: "f" }] }), target(), false);
    expect(responses.tools).toEqual([{ type: "function", name: "f" }]);
  });

  test("tool choice by name, and disableParallel", () => {
    const body = toResponsesBody(canonicalRequest({ toolChoice: { type: "tool", name: "f", disableParallel: true }, tools: [{ kind: "function", name: "f" }] }), target(), false);
    expect(body.tool_choice).toEqual({ type: "function", name: "f" });
    expect(body.parallel_tool_calls).toBe(false);
  });

  test("files: data URL → file_data, URL → file_url, anything else → file_id; tool results with images", () => {
    const request = canonicalRequest({
      messages: [
        {
          role: "user",
          parts: [
            { type: "file", data: "data:application/pdf;base64,JVBER", filename: "a.pdf" },
            { type: "file", data: "https://x.test/b.pdf" },
            { type: "file", data: "file-abc", filename: "c.txt" },
          ],
        },
        { role: "tool", parts: [{ type: "tool-result", callId: "c1", content: [{ type: "text", text: "r" }, { type: "image", url: "https://x.test/i.png" }] }] },
      ],
    });
    expect(toResponsesBody(request, target(), false).input).toEqual([
      {
        role: "user",
        content: [
          { type: "input_file", file_data: "data:application/pdf;base64,JVBER", filename: "a.pdf" },
          { type: "input_file", file_url: "https://x.test/b.pdf" },
          { type: "input_file", file_id: "file-abc", filename: "c.txt" },
        ],
      },
      { type: "function_call_output", call_id: "c1", output: [{ type: "input_text", text: "r" }, { type: "input_image", image_url: "https://x.test/i.png", detail: "auto" }] },
    ]);
  });

  test("what the Responses API cannot carry is a warning, never a silent drop", () => {
    const request = canonicalRequest({
      system: [{ type: "text", text: "S", cache: { type: "ephemeral" } }],
      messages: [
        { role: "user", parts: [{ type: "text", text: "q" }] },
        { role: "assistant", parts: [{ type: "reasoning", text: "t", signature: "sig", format: "anthropic-claude-v1" }, { type: "text", text: "a" }] },
        { role: "tool", parts: [{ type: "tool-result", callId: "c", content: "boom", isError: true }] },
      ],
      tools: [{ kind: "server", type: "service:web_search" }],
      sampling: { topK: 4, frequencyPenalty: 1, presencePenalty: 1, seed: 3, stop: ["x"] },
      reasoning: { effort: "high", maxTokens: 1000 },
      output: { verbosity: "max" },
      serviceTier: "ultrafast",
      modalities: ["text", "image"],
      passthrough: { image_config: { size: "1k" } },
    });
    const body = toResponsesBody(request, target(), false);
    expect(body.input).toEqual([
      { role: "user", content: [{ type: "input_text", text: "q" }] },
      { role: "assistant", content: [{ type: "output_text", text: "a", annotations: [] }] },
      { type: "function_call_output", call_id: "c", output: "boom" },
    ]);
    expect(body.tools).toBeUndefined();
    expect(body.text).toEqual({ verbosity: "high" });
    expect(body.service_tier).toBe("priority");
    expect(request.warnings.map((w) => w.field).sort()).toEqual(
      [
        "cache_control",
        "frequency_penalty",
        "image_config",
        "messages[1].reasoning",
        "messages[2].is_error",
        "modalities",
        "presence_penalty",
        "reasoning.max_tokens",
        "seed",
        "service_tier",
        "stop",
        "text.verbosity",
        "tools[0]",
        "top_k",
      ].sort(),
    );
  });

  test("reasoning without encrypted content or id is not replayed (stateless upstream), with a warning", () => {
    const request = canonicalRequest({
      messages: [
        { role: "user", parts: [{ type: "text", text: "q" }] },
        { role: "assistant", parts: [{ type: "reasoning", text: "t", id: "rs_1" }, { type: "reasoning", text: "", summary: ["s"], id: "rs_2", encrypted: "E" }, { type: "text", text: "a" }] },
      ],
    });
    expect(toResponsesBody(request, target(), false).input).toEqual([
      { role: "user", content: [{ type: "input_text", text: "q" }] },
      { type: "reasoning", id: "rs_2", summary: [{ type: "summary_text", text: "s" }], encrypted_content: "E" },
      { role: "assistant", content: [{ type: "output_text", text: "a", annotations: [] }] },
    ]);
    expect(request.warnings.map((w) => w.field)).toEqual(["messages[1].reasoning"]);
  });

  test("reasoning disabled is effort none and asks for no encrypted reasoning", () => {
    const body = toResponsesBody(canonicalRequest({ reasoning: { enabled: false } }), target(), false);
    expect(body.reasoning).toEqual({ effort: "none" });
    expect(body.include).toBeUndefined();
  });
});
