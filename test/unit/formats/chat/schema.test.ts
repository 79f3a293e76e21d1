/** ChatRequestSchema limits (spec "Limits", "Chat-completions request"): each at its boundary and one past it. */
import { describe, expect, test } from "bun:test";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { ChatRequestSchema } from "../../../../core/formats/chat/schema.ts";

const validator = TypeCompiler.Compile(ChatRequestSchema);
const base = { model: "openai/gpt-4o", messages: [{ role: "user", content: "hi" }] };
const valid = (extra: Record<string, unknown>) => validator.Check({ ...base, ...extra });

const metadataOf = (pairs: number) => Object.fromEntries(Array.from({ length: pairs }, (_, i) => [`k${i}`, "v"]));

/** [field, values at the boundary (accepted), values one past it (rejected)]. */
const LIMITS: Array<[string, unknown[], unknown[]]> = [
  ["temperature", [0, 2, null], [-0.01, 2.01, "1"]],
  ["top_p", [0, 1], [-0.01, 1.01]],
  ["frequency_penalty", [-2, 2], [-2.01, 2.01]],
  ["presence_penalty", [-2, 2], [-2.01, 2.01]],
  ["top_logprobs", [0, 20], [-1, 21, 1.5]],
  ["stop", ["x", ["a", "b", "c", "d"], null], [["a", "b", "c", "d", "e"], 5]],
  ["session_id", ["s".repeat(256)], ["s".repeat(257)]],
  ["user", ["u".repeat(256)], ["u".repeat(257)]],
  ["metadata", [metadataOf(16), { ["k".repeat(64)]: "v".repeat(512) }, null], [metadataOf(17)]],
  ["reasoning_effort", ["max", "xhigh", "high", "medium", "low", "minimal", "none", null], ["extreme", "HIGH"]],
  ["service_tier", ["auto", "default", "fast", "flex", "priority", "scale", "ultrafast", null], ["turbo"]],
  ["modalities", [["text", "image", "audio"]], [["video"]]],
  ["route", ["fallback", "sort", null], ["price"]],
  ["tool_choice", ["none", "auto", "required", { type: "function", function: { name: "f" } }], ["any"]],
];

describe("ChatRequestSchema limits", () => {
  for (const [field, ok, bad] of LIMITS) {
    for (const value of ok) test(`${field} accepts ${JSON.stringify(value).slice(0, 40)}`, () => expect(valid({ [field]: value })).toBe(true));
    for (const value of bad) test(`${field} rejects ${JSON.stringify(value).slice(0, 40)}`, () => expect(valid({ [field]: value })).toBe(false));
  }

  test("metadata key of 65 characters is rejected", () => {
    expect(valid({ metadata: { ["k".repeat(65)]: "v" } })).toBe(false);
  });
  test("metadata value of 513 characters is rejected", () => {
    expect(valid({ metadata: { k: "v".repeat(513) } })).toBe(false);
  });
  test("metadata keys with brackets are rejected", () => {
    expect(valid({ metadata: { "a[0]": "v" } })).toBe(false);
    expect(valid({ metadata: { "a]": "v" } })).toBe(false);
  });
  test("metadata values must be strings", () => {
    expect(valid({ metadata: { k: 1 } })).toBe(false);
  });
  test("messages needs at least one item", () => {
    expect(validator.Check({ ...base, messages: [] })).toBe(false);
    expect(validator.Check({ model: "m" })).toBe(false);
  });
  test("unknown top-level fields are accepted", () => {
    expect(valid({ n: 1, store: true, web_search_options: {} })).toBe(true);
  });
});

describe("ChatRequestSchema messages", () => {
  const check = (message: Record<string, unknown>) => validator.Check({ ...base, messages: [message] });

  test("accepts every role and content shape real clients send", () => {
    expect(check({ role: "system", content: "s" })).toBe(true);
    expect(check({ role: "developer", content: [{ type: "text", text: "d" }] })).toBe(true);
    expect(
      check({
        role: "user",
        content: [
          { type: "text", text: "t", cache_control: { type: "ephemeral" } },
          { type: "image_url", image_url: { url: "https://x/y.png", detail: "low" } },
          { type: "input_audio", input_audio: { data: "AAA=", format: "wav" } },
          { type: "file", file: { file_data: "data:application/pdf;base64,AA==", filename: "a.pdf" } },
        ],
      }),
    ).toBe(true);
    expect(
      check({
        role: "assistant",
        content: null,
        tool_calls: [{ id: "call_1", type: "function", function: { name: "f", arguments: "{}" } }],
        reasoning_details: [{ type: "reasoning.text", text: "r", signature: "sig", format: "anthropic-claude-v1", index: 0 }],
      }),
    ).toBe(true);
    expect(check({ role: "assistant", tool_calls: [] })).toBe(true);
    expect(check({ role: "tool", tool_call_id: "call_1", content: "42" })).toBe(true);
  });

  test("rejects unknown roles, a tool message without tool_call_id and unknown part types", () => {
    expect(check({ role: "function", content: "x" })).toBe(false);
    expect(check({ role: "tool", content: "42" })).toBe(false);
    expect(check({ role: "user", content: [{ type: "video", url: "x" }] })).toBe(false);
  });

  test("tools: function, service: and the web search shorthand tools pass, other kinds do not", () => {
    const fn = { type: "function", function: { name: "f", parameters: { type: "object" }, strict: true } };
    expect(valid({ tools: [fn, { type: "service:web_search", parameters: { max_results: 3 } }] })).toBe(true);
    expect(valid({ tools: [{ type: "web_search_preview" }] })).toBe(true);
    expect(valid({ tools: [{ type: "code_interpreter" }] })).toBe(false);
  });
});
