/** Deferred tools for upstreams without deferral of their own (core/provider-kit/deferred-tools.ts). */
import { describe, expect, test } from "bun:test";
import type { Message } from "../../../core/model/parts.ts";
import type { Tool } from "../../../core/model/request.ts";
import { resolveDeferredTools } from "../../../core/provider-kit/deferred-tools.ts";
import { canonicalRequest } from "../providers/helpers.ts";

const loaded: Tool = { kind: "function", name: "Read" };
const weather: Tool = { kind: "function", name: "get_weather", description: "Weather", deferLoading: true };
const stocks: Tool = { kind: "function", name: "get_stock", deferLoading: true };
const names = (tools: Tool[]) => tools.map((tool) => (tool.kind === "function" ? `${tool.name}${tool.deferLoading ? " (deferred)" : ""}` : tool.type));

const searched = (content: string, references: string[]): Message[] => [
  { role: "user", parts: [{ type: "text", text: "weather?" }] },
  { role: "assistant", parts: [{ type: "tool-call", id: "c1", name: "ToolSearch", arguments: "{}" }] },
  { role: "tool", parts: [{ type: "tool-result", callId: "c1", content, toolReferences: references }] },
];

describe("resolveDeferredTools", () => {
  test("without deferred tools the request is returned as it is", () => {
    const request = canonicalRequest({ tools: [loaded] });
    expect(resolveDeferredTools(request, "openai")).toBe(request);
  });

  test("deferred tools are withheld until a tool_reference names them; named ones are sent as ordinary tools", () => {
    const first = resolveDeferredTools(canonicalRequest({ tools: [loaded, weather, stocks] }), "openai");
    expect(names(first.tools)).toEqual(["Read"]);
    const later = resolveDeferredTools(canonicalRequest({ tools: [loaded, weather, stocks], messages: searched("", ["get_weather"]) }), "openai");
    expect(names(later.tools)).toEqual(["Read", "get_weather"]);
    expect(later.tools[1]).toEqual({ kind: "function", name: "get_weather", description: "Weather" });
    expect(later.warnings).toEqual([]);
  });

  test("the reference reaches the model as a line of text, after what the result said", () => {
    const bare = resolveDeferredTools(canonicalRequest({ tools: [loaded, weather], messages: searched("", ["get_weather"]) }), "openai");
    expect(bare.messages[2]!.parts[0]).toEqual({ type: "tool-result", callId: "c1", content: "Tools loaded: get_weather" });
    const said = resolveDeferredTools(canonicalRequest({ tools: [loaded, weather, stocks], messages: searched("2 found", ["get_weather", "get_stock"]) }), "openai");
    expect(said.messages[2]!.parts[0]).toMatchObject({ content: "2 found\nTools loaded: get_weather, get_stock" });
  });

  test("a tool the model already called, or tool_choice names, is loaded", () => {
    const called: Message[] = [{ role: "user", parts: [{ type: "text", text: "x" }] }, { role: "assistant", parts: [{ type: "tool-call", id: "c", name: "get_stock", arguments: "{}" }] }];
    expect(names(resolveDeferredTools(canonicalRequest({ tools: [loaded, weather, stocks], messages: called }), "gemini").tools)).toEqual(["Read", "get_stock"]);
    expect(names(resolveDeferredTools(canonicalRequest({ tools: [loaded, weather, stocks], toolChoice: { type: "tool", name: "get_weather" } }), "gemini").tools)).toEqual(["Read", "get_weather"]);
  });

  test("with Anthropic's own tool search, which no other upstream runs, every deferred tool is sent up front, with a warning", () => {
    const request = canonicalRequest({ tools: [loaded, weather, stocks, { kind: "server", type: "tool_search_tool_regex_20251119" }] });
    const resolved = resolveDeferredTools(request, "openai-responses");
    expect(names(resolved.tools)).toEqual(["Read", "get_weather", "get_stock", "tool_search_tool_regex_20251119"]);
    expect(request.warnings).toEqual([expect.objectContaining({ code: "unsupported_field", field: "tools.defer_loading", message: expect.stringContaining("openai-responses has no tool search") })]);
  });
});
