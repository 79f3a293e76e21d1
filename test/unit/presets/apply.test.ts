/**
 * core/presets/apply.ts: the body-level merge in every format — request fields win (shallow), the system prompt is
 * prepended, tools merge by identity (preset order kept, request-only tools appended). The Messages cases are also
 * the proof for that format, whose /messages route is not mounted in this build (batches cover it over HTTP).
 */
import { describe, expect, test } from "bun:test";
import { mergePreset } from "../../../core/presets/apply.ts";
import { toolIdentity } from "../../../core/presets/tools.ts";

const schema = { type: "object", properties: {} };
const chatTool = (name: string, description: string) => ({ type: "function", function: { name, description, parameters: schema } });
const preset = {
  config: {
    model: "acme/model-a",
    temperature: 0.3,
    max_tokens: 40,
    tools: [chatTool("get_weather", "preset weather"), chatTool("get_time", "preset time"), { type: "service:datetime", parameters: { timezone: "UTC" } }],
  },
  systemPrompt: "You are a pirate.",
};

describe("chat", () => {
  test("request fields win; missing ones come from the preset; model from the preset when the request named none", () => {
    const merged = mergePreset("chat", { model: "@preset/p", temperature: 0.9, messages: [{ role: "user", content: "hi" }] }, preset, undefined);
    expect(merged.model).toBe("acme/model-a");
    expect(merged.temperature).toBe(0.9);
    expect(merged.max_tokens).toBe(40);
    expect(merged.preset).toBeUndefined();
  });

  test("the request's own model wins over the preset's", () => {
    const merged = mergePreset("chat", { model: "x", preset: "p", messages: [] }, preset, "simulator/small");
    expect(merged.model).toBe("simulator/small");
  });

  test("the system prompt goes first, before the request's own system message", () => {
    const merged = mergePreset("chat", { messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "hi" }] }, preset, undefined);
    expect(merged.messages).toEqual([
      { role: "system", content: "You are a pirate." },
      { role: "system", content: "Be brief." },
      { role: "user", content: "hi" },
    ]);
  });

  test("tools merge by identity: replaced in place, preset order kept, request-only appended", () => {
    const merged = mergePreset("chat", { messages: [], tools: [chatTool("lookup", "req lookup"), chatTool("get_weather", "request weather"), { type: "service:datetime", parameters: { timezone: "Europe/Paris" } }] }, preset, undefined);
    expect(merged.tools).toEqual([
      chatTool("get_weather", "request weather"),
      chatTool("get_time", "preset time"),
      { type: "service:datetime", parameters: { timezone: "Europe/Paris" } },
      chatTool("lookup", "req lookup"),
    ]);
  });

  test("one concept, one spelling: the request's max_completion_tokens drops the preset's max_tokens", () => {
    const merged = mergePreset("chat", { messages: [], max_completion_tokens: 5 }, preset, undefined);
    expect(merged.max_tokens).toBeUndefined();
    expect(merged.max_completion_tokens).toBe(5);
  });

  test("a malformed request `tools` is left for validation to reject", () => {
    expect(mergePreset("chat", { messages: [], tools: "nope" }, preset, undefined).tools).toBe("nope");
  });
});

describe("messages", () => {
  test("max_tokens, system prepended to a string system, tools in Messages shape", () => {
    const merged = mergePreset("messages", { model: "@preset/p", system: "Be brief.", messages: [{ role: "user", content: "hi" }], tools: [{ name: "get_time", description: "mine", input_schema: schema }] }, preset, undefined);
    expect(merged.model).toBe("acme/model-a");
    expect(merged.max_tokens).toBe(40);
    expect(merged.system).toBe("You are a pirate.\n\nBe brief.");
    expect(merged.tools).toEqual([
      { name: "get_weather", input_schema: schema, description: "preset weather" },
      { name: "get_time", description: "mine", input_schema: schema },
      { type: "service:datetime", parameters: { timezone: "UTC" } },
    ]);
  });

  test("system given as blocks gets the preset's block first; no system at all gets the preset's text", () => {
    const blocks = mergePreset("messages", { messages: [], system: [{ type: "text", text: "Own." }] }, preset, undefined);
    expect(blocks.system).toEqual([{ type: "text", text: "You are a pirate." }, { type: "text", text: "Own." }]);
    expect(mergePreset("messages", { messages: [] }, preset, undefined).system).toBe("You are a pirate.");
  });

  test("a request `fallbacks` drops the preset's `models` (Messages forbids both)", () => {
    const merged = mergePreset("messages", { messages: [], fallbacks: [{ model: "b" }] }, { config: { models: ["a"] }, systemPrompt: null }, undefined);
    expect(merged.models).toBeUndefined();
    expect(merged.fallbacks).toEqual([{ model: "b" }]);
  });
});

describe("responses", () => {
  test("instructions prepended, max_output_tokens, flat tools", () => {
    const merged = mergePreset("responses", { model: "@preset/p", instructions: "Own.", input: "hi" }, preset, undefined);
    expect(merged.instructions).toBe("You are a pirate.\n\nOwn.");
    expect(merged.max_output_tokens).toBe(40);
    expect((merged.tools as Array<{ name?: string }>).map((t) => t.name)).toEqual(["get_weather", "get_time", undefined]);
  });
});

describe("tool identity", () => {
  test("function by name, advisor/subagent by type and name, other server tools by type", () => {
    expect(toolIdentity("chat", chatTool("f", "d"))).toBe("function:f");
    expect(toolIdentity("responses", { type: "function", name: "f" })).toBe("function:f");
    expect(toolIdentity("messages", { name: "f", input_schema: schema })).toBe("function:f");
    expect(toolIdentity("chat", { type: "service:advisor", parameters: { name: "critic" } })).toBe("service:advisor:critic");
    expect(toolIdentity("chat", { type: "service:web_search", parameters: { max_results: 3 } })).toBe("service:web_search");
  });
});
