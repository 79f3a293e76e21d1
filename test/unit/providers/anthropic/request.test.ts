import { describe, expect, test } from "bun:test";
import { messagesFormat } from "../../../../core/formats/messages/index.ts";
import { responsesFormat } from "../../../../core/formats/responses/index.ts";
import { anthropicHeaders, toAnthropicBody } from "../../../../providers/anthropic/request.ts";
import { canonicalRequest, target } from "../helpers.ts";

const SIGNATURE = "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds";

describe("anthropic request: a Messages client passes through intact", () => {
  const weatherSchema = { type: "object", properties: { location: { type: "string" } }, required: ["location"] };
  const client = {
    model: "anthropic/claude-sonnet-4.5",
    max_tokens: 16000,
    system: [{ type: "text", text: "You are a weather bot.", cache_control: { type: "ephemeral" } }],
    thinking: { type: "enabled", budget_tokens: 10000 },
    tools: [
      { name: "get_weather", description: "Current weather", input_schema: weatherSchema, cache_control: { type: "ephemeral", ttl: "1h" } },
      { type: "web_search_20250305", name: "web_search", max_uses: 3 },
    ],
    tool_choice: { type: "auto" },
    messages: [
      { role: "user", content: "Weather in SF?" },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "Need the tool.", signature: SIGNATURE },
          { type: "redacted_thinking", data: "EmwKAhgBEgy3va3p" },
          { type: "text", text: "Checking." },
          { type: "tool_use", id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", name: "get_weather", input: { location: "San Francisco, CA" } },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", content: "15C, foggy", cache_control: { type: "ephemeral" } },
          { type: "text", text: "Thanks!" },
        ],
      },
    ],
    stop_sequences: ["###"],
    metadata: { user_id: "user-42" },
    context_management: { edits: [{ type: "clear_tool_uses_20250919" }] },
    cache_control: { type: "ephemeral" },
    stream: true,
    // Gateway fields: consumed by the pipeline, never sent upstream.
    fallbacks: [{ model: "openai/gpt-5" }],
    session_id: "s-1",
    plugins: [{ id: "response-healing" }],
  };

  test("exact upstream body", () => {
    const request = messagesFormat.decode(client, new Headers({ "anthropic-beta": "context-management-2025-06-27" }));
    const body = toAnthropicBody(request, target({ upstreamModel: "claude-sonnet-4-5-20250929" }), true);
    expect(body).toEqual({
      model: "claude-sonnet-4-5-20250929",
      max_tokens: 16000,
      system: [{ type: "text", text: "You are a weather bot.", cache_control: { type: "ephemeral" } }],
      cache_control: { type: "ephemeral" },
      messages: [
        { role: "user", content: [{ type: "text", text: "Weather in SF?" }] },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "Need the tool.", signature: SIGNATURE },
            { type: "redacted_thinking", data: "EmwKAhgBEgy3va3p" },
            { type: "text", text: "Checking." },
            { type: "tool_use", id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", name: "get_weather", input: { location: "San Francisco, CA" } },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", content: "15C, foggy", cache_control: { type: "ephemeral" } },
            { type: "text", text: "Thanks!" },
          ],
        },
      ],
      tools: [
        { name: "get_weather", input_schema: weatherSchema, description: "Current weather", cache_control: { type: "ephemeral", ttl: "1h" } },
        { type: "web_search_20250305", name: "web_search", max_uses: 3 },
      ],
      tool_choice: { type: "auto" },
      stop_sequences: ["###"],
      thinking: { type: "enabled", budget_tokens: 10000 },
      metadata: { user_id: "user-42" },
      context_management: { edits: [{ type: "clear_tool_uses_20250919" }] },
      stream: true,
    });
    expect(request.warnings).toEqual([]);
    expect(anthropicHeaders(request, target({ apiKey: "sk-ant-1", options: { beta: ["fine-grained-tool-streaming-2025-05-14"] } }))).toEqual({
      "anthropic-version": "2023-06-01",
      "x-api-key": "sk-ant-1",
      "anthropic-beta": "fine-grained-tool-streaming-2025-05-14,context-management-2025-06-27",
    });
  });

  test("output_config effort and format pass natively; effort alone does not switch thinking on", () => {
    const request = messagesFormat.decode(
      { model: "m", max_tokens: 100, messages: [{ role: "user", content: "x" }], output_config: { effort: "high", format: { type: "json_schema", schema: { type: "object" } } } },
      new Headers(),
    );
    const body = toAnthropicBody(request, target(), false);
    expect(body.output_config).toEqual({ format: { type: "json_schema", schema: { type: "object" } }, effort: "high" });
    expect(body.thinking).toBeUndefined();
    expect("stream" in body).toBe(false);
  });

  test("adaptive thinking with display", () => {
    const request = messagesFormat.decode({ model: "m", max_tokens: 100, messages: [], thinking: { type: "adaptive", display: "omitted" } }, new Headers());
    expect(toAnthropicBody(request, target(), false).thinking).toEqual({ type: "adaptive", display: "omitted" });
  });
});

describe("anthropic request: other formats' requests", () => {
  test("chat-style request: effort → budget, default max_tokens grows, sampling constraints, warnings", () => {
    const request = canonicalRequest({
      system: [{ type: "text", text: "Be brief." }],
      reasoning: { effort: "high" },
      sampling: { temperature: 0.7, topK: 5, topP: 0.9, seed: 7, frequencyPenalty: 0.1 },
      metadata: { run: "1" },
    });
    const body = toAnthropicBody(request, target(), false);
    expect(body.system).toBe("Be brief.");
    expect(body.thinking).toEqual({ type: "enabled", budget_tokens: 16384 });
    expect(body.max_tokens).toBe(16384 + 4096);
    expect(body.temperature).toBeUndefined();
    expect(body.top_k).toBeUndefined();
    expect(body.top_p).toBeUndefined();
    expect(request.warnings.map((w) => w.field)).toEqual(["max_tokens", "frequency_penalty", "seed", "temperature", "top_k", "top_p", "metadata"]);
  });

  test("client max_tokens below the budget lowers the budget; too small disables thinking", () => {
    const lowered = toAnthropicBody(canonicalRequest({ maxTokens: 5000, reasoning: { enabled: true, maxTokens: 8000 } }), target(), false);
    expect(lowered.thinking).toEqual({ type: "enabled", budget_tokens: 4999 });
    expect(lowered.max_tokens).toBe(5000);
    const off = canonicalRequest({ maxTokens: 500, reasoning: { effort: "low" } });
    expect(toAnthropicBody(off, target(), false).thinking).toBeUndefined();
    expect(off.warnings.some((w) => w.field === "reasoning")).toBe(true);
    expect(toAnthropicBody(canonicalRequest({ maxTokens: 10, reasoning: { effort: "none" } }), target(), false).thinking).toEqual({ type: "disabled" });
  });

  test("history from another family: foreign reasoning dropped with a warning, ids made Anthropic-safe, roles merged", () => {
    const request = canonicalRequest({
      maxTokens: 256,
      parallelToolCalls: false,
      tools: [
        { kind: "function", name: "get_weather", parameters: { type: "object" } },
        { kind: "server", type: "service:datetime" },
      ],
      output: { format: { type: "json_schema", name: "w", schema: { type: "object" } } },
      messages: [
        {
          role: "user",
          parts: [
            { type: "text", text: "Look" },
            { type: "image", url: "data:image/png;base64,iVBORw0KGgo=", mediaType: "image/png" },
            { type: "image", url: "https://example.com/cat.jpg" },
            { type: "file", data: "data:application/pdf;base64,JVBERi0x", mediaType: "application/pdf", filename: "a.pdf" },
          ],
        },
        {
          role: "assistant",
          parts: [
            { type: "reasoning", text: "", summary: ["plan"], encrypted: "gAAAA", format: "openai-responses-v1" },
            { type: "tool-call", id: "functions.get_weather:0", name: "get_weather", arguments: '{"city":"Paris"}' },
            { type: "tool-call", id: "call_2", name: "get_weather", arguments: "not json" },
          ],
        },
        { role: "tool", parts: [{ type: "tool-result", callId: "functions.get_weather:0", content: "18C" }] },
        { role: "tool", parts: [{ type: "tool-result", callId: "call_2", content: [{ type: "text", text: "bad" }], isError: true }] },
      ],
    });
    const body = toAnthropicBody(request, target(), false);
    expect(body.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "Look" },
          { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
          { type: "image", source: { type: "url", url: "https://example.com/cat.jpg" } },
          { type: "document", source: { type: "base64", media_type: "application/pdf", data: "JVBERi0x" }, title: "a.pdf" },
        ],
      },
      {
        role: "assistant",
        content: [
          { type: "tool_use", id: "functions_get_weather_0", name: "get_weather", input: { city: "Paris" } },
          { type: "tool_use", id: "call_2", name: "get_weather", input: {} },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "functions_get_weather_0", content: "18C" },
          { type: "tool_result", tool_use_id: "call_2", content: [{ type: "text", text: "bad" }], is_error: true },
        ],
      },
    ]);
    expect(body.tools).toEqual([{ name: "get_weather", input_schema: { type: "object" } }]);
    expect(body.tool_choice).toEqual({ type: "auto", disable_parallel_tool_use: true });
    expect(body.output_config).toEqual({ format: { type: "json_schema", schema: { type: "object" } } });
    expect(request.warnings.map((w) => w.field)).toEqual(["messages.assistant.reasoning", "tool_use.input", "tools[1]"]);
  });

  test("tool choice mapping", () => {
    const tools = [{ kind: "function" as const, name: "f" }];
    const choice = (toolChoice: Parameters<typeof canonicalRequest>[0]) => toAnthropicBody(canonicalRequest({ maxTokens: 10, tools, ...toolChoice }), target(), false).tool_choice;
    expect(choice({ toolChoice: { type: "required" } })).toEqual({ type: "any" });
    expect(choice({ toolChoice: { type: "none" } })).toEqual({ type: "none" });
    expect(choice({ toolChoice: { type: "tool", name: "f", disableParallel: true } })).toEqual({ type: "tool", name: "f", disable_parallel_tool_use: true });
    expect(choice({})).toBeUndefined();
  });
});

describe("anthropic request: signed thinking a Responses client sent back", () => {
  test("as its summary only (the text was shown as the summary it asked for): the summary is the thinking", () => {
    const request = responsesFormat.decode(
      {
        model: "anthropic/claude-sonnet-4.5",
        reasoning: { summary: "auto" },
        input: [
          { role: "user", content: "Weather in SF?" },
          { type: "reasoning", id: "rs_gw_gen-1_0", summary: [{ type: "summary_text", text: "Need the tool." }], signature: SIGNATURE, format: "anthropic-claude-v1" },
          { type: "message", role: "assistant", content: [{ type: "output_text", text: "Foggy." }] },
          { role: "user", content: "Thanks!" },
        ],
      },
      new Headers(),
    );
    const body = toAnthropicBody(request, target({ upstreamModel: "claude-sonnet-4-5-20250929" }), false) as { messages: Array<{ content: unknown[] }> };
    expect(body.messages[1]!.content[0]).toEqual({ type: "thinking", thinking: "Need the tool.", signature: SIGNATURE });
  });
});
