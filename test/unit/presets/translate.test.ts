/** core/presets/translate.ts: what a body stores, per format, and how a config is written back per format. */
import { describe, expect, test } from "bun:test";
import { fromConfig, toConfig } from "../../../core/presets/translate.ts";
import { systemPromptOf } from "../../../core/presets/system-prompt.ts";

const schema = { type: "object", properties: { city: { type: "string" } } };

describe("toConfig: only overlapping fields are stored, in the chat vocabulary", () => {
  test("chat: config fields kept, per-request fields ignored", () => {
    const body = {
      model: "m",
      temperature: 0.3,
      max_tokens: 50,
      provider: { order: ["a"] },
      plugins: [{ id: "response-healing" }],
      messages: [{ role: "user", content: "hi" }],
      stream: true,
      prompt: { id: "x" },
      user: "u1",
      metadata: { a: "b" },
      session_id: "s",
    };
    expect(toConfig("chat", body)).toEqual({ model: "m", temperature: 0.3, max_tokens: 50, provider: { order: ["a"] }, plugins: [{ id: "response-healing" }] });
  });

  test("messages: max_tokens, stop_sequences, fallbacks, tools and tool_choice are translated", () => {
    const body = {
      model: "m",
      max_tokens: 100,
      system: "Be brief.",
      stop_sequences: ["END"],
      fallbacks: [{ model: "b" }],
      tools: [{ name: "get_weather", description: "d", input_schema: schema }, { type: "service:datetime", parameters: { timezone: "UTC" } }],
      tool_choice: { type: "any", disable_parallel_tool_use: true },
      thinking: { type: "enabled", budget_tokens: 1000 },
      messages: [{ role: "user", content: "hi" }],
    };
    expect(toConfig("messages", body)).toEqual({
      model: "m",
      max_tokens: 100,
      stop: ["END"],
      models: ["b"],
      tools: [{ type: "function", function: { name: "get_weather", description: "d", parameters: schema } }, { type: "service:datetime", parameters: { timezone: "UTC" } }],
      tool_choice: "required",
      parallel_tool_calls: false,
      thinking: { type: "enabled", budget_tokens: 1000 },
    });
    expect(systemPromptOf("messages", body)).toBe("Be brief.");
  });

  test("responses: max_output_tokens, text and flat function tools are translated; instructions is the system prompt", () => {
    const body = {
      model: "m",
      instructions: "Answer in French.",
      max_output_tokens: 64,
      text: { format: { type: "json_schema", name: "out", schema }, verbosity: "low" },
      tools: [{ type: "function", name: "f", parameters: schema, defer_loading: true }],
      tool_choice: { type: "function", name: "f" },
      input: "hi",
    };
    expect(toConfig("responses", body)).toEqual({
      model: "m",
      max_completion_tokens: 64,
      response_format: { type: "json_schema", json_schema: { name: "out", schema } },
      verbosity: "low",
      tools: [{ type: "function", function: { name: "f", parameters: schema, defer_loading: true } }],
      tool_choice: { type: "function", function: { name: "f" } },
    });
    expect(systemPromptOf("responses", body)).toBe("Answer in French.");
  });

  test("chat system prompt: system and developer messages, joined", () => {
    const body = { messages: [{ role: "system", content: "One." }, { role: "developer", content: [{ type: "text", text: "Two." }] }, { role: "user", content: "x" }] };
    expect(systemPromptOf("chat", body)).toBe("One.\n\nTwo.");
    expect(systemPromptOf("chat", { messages: [{ role: "user", content: "x" }] })).toBeNull();
  });
});

describe("fromConfig: a config in each format's own names", () => {
  const config = {
    model: "m",
    temperature: 0.2,
    max_tokens: 77,
    stop: "STOP",
    frequency_penalty: 0.5,
    response_format: { type: "json_schema", json_schema: { name: "out", schema } },
    reasoning_effort: "low",
    tools: [{ type: "function", function: { name: "f", description: "d", parameters: schema } }, { type: "service:datetime" }],
    tool_choice: { type: "function", function: { name: "f" } },
    thinking: { type: "disabled" },
  };

  test("chat: the chat fields as stored", () => {
    const out = fromConfig("chat", config);
    expect(out).toMatchObject({ model: "m", max_tokens: 77, stop: "STOP", reasoning_effort: "low" });
    expect(out.thinking).toBeUndefined();
  });

  test("messages: max_tokens, stop_sequences, output_config, tools with input_schema, tool_choice", () => {
    expect(fromConfig("messages", config)).toEqual({
      model: "m",
      temperature: 0.2,
      max_tokens: 77,
      stop_sequences: ["STOP"],
      output_config: { format: { type: "json_schema", schema, name: "out" }, effort: "low" },
      tools: [{ name: "f", input_schema: schema, description: "d" }, { type: "service:datetime" }],
      tool_choice: { type: "tool", name: "f" },
      thinking: { type: "disabled" },
    });
  });

  test("responses: max_output_tokens, text.format, reasoning.effort, flat tools", () => {
    expect(fromConfig("responses", config)).toEqual({
      model: "m",
      temperature: 0.2,
      frequency_penalty: 0.5,
      max_output_tokens: 77,
      text: { format: { type: "json_schema", name: "out", schema } },
      reasoning: { effort: "low" },
      tools: [{ type: "function", name: "f", description: "d", parameters: schema }, { type: "service:datetime" }],
      tool_choice: { type: "function", name: "f" },
    });
  });

  test("a vendor-typed tool is kept for formats that can say it and left out of chat", () => {
    const vendor = { tools: [{ type: "web_search_preview" }] };
    expect(fromConfig("responses", vendor).tools).toEqual([{ type: "web_search_preview" }]);
    expect(fromConfig("messages", vendor).tools).toEqual([{ type: "web_search_preview" }]);
    expect(fromConfig("chat", vendor).tools).toEqual([]);
    expect(toConfig("responses", vendor).tools).toEqual([{ type: "web_search_preview" }]);
  });
});
