/** Every Responses limit at its boundary and one past it; enums and types (spec "Limits", "Responses request"). */
import { describe, expect, test } from "bun:test";
import { parse, rejection, validator } from "./helpers.ts";

const base = { model: "openai/gpt-5", input: "hi" };
const pairs = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, "v"]));

describe("limits", () => {
  test("max_tool_calls: 30 accepted, 31 rejected, 0 accepted, non-integer rejected", () => {
    expect(parse({ ...base, max_tool_calls: 30 }).maxToolCalls).toBe(30);
    expect(parse({ ...base, max_tool_calls: 0 }).maxToolCalls).toBe(0);
    rejection({ ...base, max_tool_calls: 31 });
    rejection({ ...base, max_tool_calls: 2.5 });
    expect(parse({ ...base, max_tool_calls: null }).maxToolCalls).toBeUndefined();
  });

  test("metadata: 16 pairs accepted, 17 rejected", () => {
    expect(Object.keys(parse({ ...base, metadata: pairs(16) }).metadata ?? {})).toHaveLength(16);
    rejection({ ...base, metadata: pairs(17) });
  });

  test("metadata keys: 64 chars accepted, 65 rejected, brackets rejected", () => {
    expect(parse({ ...base, metadata: { ["k".repeat(64)]: "v" } }).metadata).toEqual({ ["k".repeat(64)]: "v" });
    rejection({ ...base, metadata: { ["k".repeat(65)]: "v" } });
    rejection({ ...base, metadata: { "a[b]": "v" } });
    rejection({ ...base, metadata: { "x]": "v" } });
    rejection({ ...base, metadata: { "[x": "v" } });
  });

  test("metadata values: 512 chars accepted, 513 rejected, non-strings rejected", () => {
    expect(parse({ ...base, metadata: { k: "v".repeat(512) } }).metadata?.k).toHaveLength(512);
    rejection({ ...base, metadata: { k: "v".repeat(513) } });
    rejection({ ...base, metadata: { k: 5 } });
    expect(parse({ ...base, metadata: null }).metadata).toBeUndefined();
  });

  test("session_id: 256 chars accepted, 257 rejected", () => {
    expect(parse({ ...base, session_id: "s".repeat(256) }).sessionId).toHaveLength(256);
    rejection({ ...base, session_id: "s".repeat(257) });
  });

  test("user: 256 chars accepted, 257 rejected", () => {
    expect(parse({ ...base, user: "u".repeat(256) }).user).toHaveLength(256);
    rejection({ ...base, user: "u".repeat(257) });
  });

  test("top_logprobs: 0 and 20 accepted, 21 and -1 rejected", () => {
    expect(parse({ ...base, top_logprobs: 20 }).sampling.topLogprobs).toBe(20);
    expect(parse({ ...base, top_logprobs: 0 }).sampling.topLogprobs).toBe(0);
    rejection({ ...base, top_logprobs: 21 });
    rejection({ ...base, top_logprobs: -1 });
  });

  test("stop_server_tools_when needs at least one condition", () => {
    expect(parse({ ...base, stop_server_tools_when: [{ type: "step_count_is", step_count: 3 }] }).stopWhen).toHaveLength(1);
    rejection({ ...base, stop_server_tools_when: [] });
    rejection({ ...base, stop_server_tools_when: [{ type: "step_count_is" }] });
  });
});

describe("enums and types", () => {
  test.each([
    ["service_tier", "turbo"],
    ["truncation", "disabled"],
    ["route", "cheapest"],
    ["include", ["message.output_text.logprob"]],
    ["include", ["web_search_call"]],
    ["modalities", ["audio"]],
    ["reasoning", { effort: "extreme" }],
    ["reasoning", { summary: "brief" }],
    ["text", { verbosity: "loud" }],
    ["text", { format: { type: "yaml" } }],
    ["text", { format: { type: "json_schema", name: "x" } }],
    ["tool_choice", "sometimes"],
    ["cache_control", { type: "persistent" }],
    ["prompt_cache_options", { mode: "implicit" }],
    ["store", true],
    ["stream", "yes"],
    ["temperature", "hot"],
    ["max_output_tokens", 0],
    ["max_output_tokens", 1.5],
    ["top_k", 1.5],
    ["input", 42],
    ["plugins", [{ enabled: true }]],
    ["tools", [{ type: "function" }]],
    ["tools", [{ type: "service:" }]],
    ["image_config", { size: true }],
    ["debug", { echo_upstream_body: "yes" }],
    ["trace", { trace_id: 7 }],
  ])("%s = %j is rejected", (field, value) => {
    rejection({ ...base, [field]: value });
  });

  test.each([
    ["service_tier", "fast"],
    ["service_tier", "ultrafast"],
    ["service_tier", null],
    ["truncation", "auto"],
    ["route", "fallback"],
    ["include", ["reasoning.encrypted_content", "file_search_call.results"]],
    ["include", ["web_search_call.action.sources", "web_search_call.results", "message.output_text.logprobs"]],
    ["include", null],
    ["modalities", ["text", "image"]],
    ["text", { format: { type: "json_schema", name: "x", schema: { type: "object" } }, verbosity: "xhigh" }],
    ["tool_choice", { type: "function", name: "f" }],
    ["tool_choice", { type: "allowed_tools", mode: "auto", tools: [{ type: "function", name: "f" }] }],
    ["store", false],
    ["previous_response_id", null],
    ["background", false],
    ["reasoning", { effort: "max", summary: "auto", enabled: true, max_tokens: 100, mode: "pro", context: "all_turns" }],
  ])("%s = %j is accepted", (field, value) => {
    expect(validator.Check({ ...base, [field]: value })).toBe(true);
    parse({ ...base, [field]: value });
  });

  test("input items: known kinds must be well formed, unknown kinds pass the schema", () => {
    rejection({ ...base, input: [{ type: "function_call", name: "f", arguments: "{}" }] });
    rejection({ ...base, input: [{ type: "function_call_output", output: "x" }] });
    rejection({ ...base, input: [{ type: "message", role: "tool", content: "x" }] });
    rejection({ ...base, input: [{ role: "user", content: [{ type: "input_audio", data: "x" }] }] });
    rejection({ ...base, input: [{ type: "reasoning", summary: [{ type: "summary_text" }] }] });
    expect(validator.Check({ ...base, input: [{ type: "web_search_call", id: "ws_1", status: "completed" }] })).toBe(true);
  });

  test("unknown top-level fields pass the schema", () => {
    expect(validator.Check({ ...base, some_new_field: { a: 1 } })).toBe(true);
  });
});
