import { describe, expect, test } from "bun:test";
import { isGatewayError } from "../../../../core/errors.ts";
import { messagesFormat } from "../../../../core/formats/messages/index.ts";

const decode = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  messagesFormat.decode(body, new Headers(headers));

function expect400(run: () => unknown, fragment: string): void {
  try {
    run();
  } catch (thrown) {
    expect(isGatewayError(thrown)).toBe(true);
    if (isGatewayError(thrown)) {
      expect(thrown.status).toBe(400);
      expect(thrown.type).toBe("invalid_request");
      expect(thrown.message).toContain(fragment);
    }
    return;
  }
  throw new Error("expected a 400");
}

describe("messages decode: basics", () => {
  test("string content, system string, sampling, stop sequences", () => {
    const request = decode({
      model: "anthropic/claude-sonnet-4.5",
      max_tokens: 1024,
      system: "You are terse.",
      messages: [{ role: "user", content: "Hello" }],
      temperature: 0.2,
      top_p: 0.9,
      top_k: 40,
      stop_sequences: ["\n\nHuman:"],
      stream: true,
    });
    expect(request.format).toBe("messages");
    expect(request.model).toBe("anthropic/claude-sonnet-4.5");
    expect(request.maxTokens).toBe(1024);
    expect(request.system).toEqual([{ type: "text", text: "You are terse." }]);
    expect(request.messages).toEqual([{ role: "user", parts: [{ type: "text", text: "Hello" }] }]);
    expect(request.sampling).toEqual({ temperature: 0.2, topP: 0.9, topK: 40, stop: ["\n\nHuman:"] });
    expect(request.stream).toBe(true);
    expect(request.models).toEqual([]);
    expect(request.warnings).toEqual([]);
  });

  test("system blocks and per-block cache_control; top-level cache_control", () => {
    const request = decode({
      model: "m",
      max_tokens: 10,
      system: [
        { type: "text", text: "Long policy", cache_control: { type: "ephemeral", ttl: "1h" } },
        { type: "text", text: "Short" },
      ],
      cache_control: { type: "ephemeral" },
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "doc", cache_control: { type: "ephemeral" } },
            { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0" } },
            { type: "image", source: { type: "url", url: "https://example.com/cat.jpg" } },
          ],
        },
      ],
    });
    expect(request.system).toEqual([
      { type: "text", text: "Long policy", cache: { type: "ephemeral", ttl: "1h" } },
      { type: "text", text: "Short" },
    ]);
    expect(request.cache).toEqual({ control: { type: "ephemeral" } });
    expect(request.messages[0]?.parts).toEqual([
      { type: "text", text: "doc", cache: { type: "ephemeral" } },
      { type: "image", url: "data:image/png;base64,iVBORw0", mediaType: "image/png" },
      { type: "image", url: "https://example.com/cat.jpg" },
    ]);
  });

  test("documents: base64 pdf, plain text, url", () => {
    const request = decode({
      model: "m",
      messages: [
        {
          role: "user",
          content: [
            { type: "document", source: { type: "base64", media_type: "application/pdf", data: "JVBERi0x" }, title: "spec.pdf" },
            { type: "document", source: { type: "text", media_type: "text/plain", data: "hi" } },
            { type: "document", source: { type: "url", url: "https://example.com/a.pdf" } },
          ],
        },
      ],
    });
    expect(request.messages[0]?.parts).toEqual([
      { type: "file", data: "data:application/pdf;base64,JVBERi0x", mediaType: "application/pdf", filename: "spec.pdf" },
      { type: "file", data: "data:text/plain;base64,aGk=", mediaType: "text/plain" },
      { type: "file", data: "https://example.com/a.pdf", mediaType: "application/pdf" },
    ]);
  });

  test("unknown top-level fields are accepted with a warning; Anthropic-only fields are kept for passthrough", () => {
    const request = decode(
      { model: "m", messages: [{ role: "user", content: "x" }], shiny_new_field: 1, context_management: { edits: [] } },
      { "anthropic-beta": "context-management-2025-06-27, interleaved-thinking-2025-05-14" },
    );
    expect(request.warnings).toEqual([{ code: "unknown_field", field: "shiny_new_field", message: "Unknown field `shiny_new_field` was ignored" }]);
    expect(request.passthrough).toEqual({
      anthropic: { context_management: { edits: [] } },
      anthropic_beta: ["context-management-2025-06-27", "interleaved-thinking-2025-05-14"],
    });
  });
});

describe("messages decode: tool use round trip", () => {
  const body = {
    model: "m",
    max_tokens: 512,
    tools: [
      {
        name: "get_weather",
        description: "Weather by city",
        input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
        cache_control: { type: "ephemeral" },
      },
      { type: "service:web_search", parameters: { max_results: 3 } },
      { type: "web_search_20250305", name: "web_search", max_uses: 2 },
    ],
    tool_choice: { type: "any", disable_parallel_tool_use: true },
    messages: [
      { role: "user", content: "Weather in Paris and Rome?" },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Checking." },
          { type: "tool_use", id: "toolu_01A", name: "get_weather", input: { city: "Paris" } },
          { type: "tool_use", id: "toolu_01B", name: "get_weather", input: { city: "Rome" } },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_01A", content: "18C" },
          { type: "tool_result", tool_use_id: "toolu_01B", content: [{ type: "text", text: "error: timeout" }], is_error: true },
          { type: "text", text: "Summarise." },
        ],
      },
    ],
  };

  test("tools, tool choice any → required, parallel disabled", () => {
    const request = decode(body);
    expect(request.tools).toEqual([
      {
        kind: "function",
        name: "get_weather",
        description: "Weather by city",
        parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
        cache: { type: "ephemeral" },
      },
      { kind: "server", type: "service:web_search", parameters: { max_results: 3 } },
      { kind: "server", type: "web_search_20250305", parameters: { name: "web_search", max_uses: 2 } },
    ]);
    expect(request.toolChoice).toEqual({ type: "required" });
    expect(request.parallelToolCalls).toBe(false);
  });

  test("tool_use → tool-call parts; tool_result → tool messages in order, named, before the trailing text", () => {
    const request = decode(body);
    expect(request.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "tool", "user"]);
    expect(request.messages[1]?.parts).toEqual([
      { type: "text", text: "Checking." },
      { type: "tool-call", id: "toolu_01A", name: "get_weather", arguments: '{"city":"Paris"}' },
      { type: "tool-call", id: "toolu_01B", name: "get_weather", arguments: '{"city":"Rome"}' },
    ]);
    expect(request.messages[2]?.parts).toEqual([{ type: "tool-result", callId: "toolu_01A", content: "18C", name: "get_weather" }]);
    expect(request.messages[3]?.parts).toEqual([
      { type: "tool-result", callId: "toolu_01B", content: [{ type: "text", text: "error: timeout" }], isError: true, name: "get_weather" },
    ]);
    expect(request.messages[4]?.parts).toEqual([{ type: "text", text: "Summarise." }]);
  });

  test("tool_choice tool needs a name", () => {
    expect400(() => decode({ model: "m", messages: [{ role: "user", content: "x" }], tool_choice: { type: "tool" } }), "tool_choice.name");
    const request = decode({ model: "m", messages: [{ role: "user", content: "x" }], tool_choice: { type: "tool", name: "f" } });
    expect(request.toolChoice).toEqual({ type: "tool", name: "f" });
  });

  test("assistant-only blocks in a user turn are a 400", () => {
    expect400(
      () => decode({ model: "m", messages: [{ role: "user", content: [{ type: "tool_use", id: "t", name: "f", input: {} }] }] }),
      "only valid in assistant messages",
    );
  });
});

describe("messages decode: thinking and output config", () => {
  test("thinking enabled → reasoning with budget; thinking blocks keep signatures", () => {
    const request = decode({
      model: "m",
      max_tokens: 16000,
      thinking: { type: "enabled", budget_tokens: 10000 },
      messages: [
        { role: "user", content: "Solve it" },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "Let me think.", signature: "EqQBCkYIBxgCKkA=" },
            { type: "redacted_thinking", data: "EmwKAhgBEgy3vbsp" },
            { type: "text", text: "42" },
          ],
        },
        { role: "user", content: "Why?" },
      ],
    });
    expect(request.reasoning).toEqual({ enabled: true, maxTokens: 10000 });
    expect(request.messages[1]?.parts).toEqual([
      { type: "reasoning", text: "Let me think.", signature: "EqQBCkYIBxgCKkA=", format: "anthropic-claude-v1" },
      { type: "reasoning", text: "", redacted: "EmwKAhgBEgy3vbsp", format: "anthropic-claude-v1" },
      { type: "text", text: "42" },
    ]);
  });

  test("adaptive thinking, disabled thinking, effort", () => {
    expect(decode({ model: "m", messages: [], thinking: { type: "adaptive", display: "summarized" } }).reasoning).toEqual({
      enabled: true,
      extra: { type: "adaptive", display: "summarized" },
    });
    expect(decode({ model: "m", messages: [], thinking: { type: "disabled" } }).reasoning).toEqual({ enabled: false });
    expect(decode({ model: "m", messages: [], output_config: { effort: "medium" } }).reasoning).toEqual({ effort: "medium" });
  });

  test("output_config.format → json_schema output", () => {
    const schema = { type: "object", properties: { a: { type: "number" } } };
    const request = decode({ model: "m", messages: [], output_config: { effort: "high", format: { type: "json_schema", schema } } });
    expect(request.output).toEqual({ format: { type: "json_schema", name: "response", schema } });
    expect(request.reasoning).toEqual({ effort: "high" });
  });
});

describe("messages decode: routing fields", () => {
  const base = { model: "anthropic/claude-sonnet-4.5", max_tokens: 10, messages: [{ role: "user", content: "x" }] };

  test("fallbacks (3) → models", () => {
    const request = decode({ ...base, fallbacks: [{ model: "a" }, { model: "b" }, { model: "c" }] });
    expect(request.models).toEqual(["a", "b", "c"]);
  });

  test("4 fallbacks → 400", () => {
    expect400(() => decode({ ...base, fallbacks: [{ model: "a" }, { model: "b" }, { model: "c" }, { model: "d" }] }), "at most 3");
  });

  test("fallbacks + models → 400", () => {
    expect400(() => decode({ ...base, fallbacks: [{ model: "a" }], models: ["b"] }), "cannot be combined with `models`");
  });

  test("extra key in a fallback entry → 400", () => {
    expect400(() => decode({ ...base, fallbacks: [{ model: "a", provider: { only: ["x"] } }] }), "accepts only `model`");
  });

  test("models alone is accepted", () => {
    expect(decode({ ...base, models: ["b", "c"] }).models).toEqual(["b", "c"]);
  });

  test("session id: body wins over x-session-id header; header used when absent", () => {
    expect(decode({ ...base, session_id: "body" }, { "x-session-id": "header" }).sessionId).toBe("body");
    expect(decode(base, { "x-session-id": "header" }).sessionId).toBe("header");
    expect400(() => decode(base, { "x-session-id": "s".repeat(257) }), "x-session-id");
  });

  test("speed, plugins, provider + route, trace, stop conditions, user/metadata, debug", () => {
    const request = decode({
      ...base,
      speed: "fast",
      plugins: [{ id: "response-healing" }],
      provider: { order: ["anthropic"], sort: "price" },
      route: "sort",
      trace: { trace_id: "t1" },
      stop_server_tools_when: [{ type: "step_count_is", step_count: 3 }],
      metadata: { user_id: "u-1" },
      debug: { echo_upstream_body: true },
    });
    expect(request.speed).toBe("fast");
    expect(request.plugins).toEqual([{ id: "response-healing" }]);
    expect(request.provider).toEqual({ order: ["anthropic"], sort: { by: "price", partition: "none" } });
    expect(request.trace).toEqual({ trace_id: "t1" });
    expect(request.stopWhen).toEqual([{ type: "step_count_is", step_count: 3 }]);
    expect(request.user).toBe("u-1");
    expect(request.debug).toEqual({ echoUpstreamBody: true });
    expect(decode({ ...base, speed: null }).speed).toBeUndefined();
  });

  test("user wins over metadata.user_id with a warning", () => {
    const request = decode({ ...base, user: "a", metadata: { user_id: "b" } });
    expect(request.user).toBe("a");
    expect(request.warnings.map((w) => w.code)).toEqual(["conflicting_field"]);
  });
});

describe("messages decode: the clients' own tool spellings and client-side tool search", () => {
  const base = { model: "anthropic/claude-sonnet-4.5", max_tokens: 10, messages: [{ role: "user", content: "x" }] };

  test("openrouter:<tool> is service:<tool> (spelling and defer_loading kept); Anthropic's typed tools keep their fields", () => {
    const request = decode({
      ...base,
      tools: [
        { type: "openrouter:tool_search", parameters: { max_results: 3 }, defer_loading: false },
        { type: "tool_search_tool_regex_20251119", name: "tool_search_tool_regex", defer_loading: true },
      ],
    });
    expect(request.tools).toEqual([
      { kind: "server", type: "service:tool_search", parameters: { max_results: 3 }, spelling: "openrouter:tool_search", deferLoading: false },
      { kind: "server", type: "tool_search_tool_regex_20251119", parameters: { name: "tool_search_tool_regex", defer_loading: true } },
    ]);
  });

  test("tool_reference blocks in a tool_result are the tools it found; a replayed openrouter: call is ours", () => {
    const request = decode({
      ...base,
      messages: [
        { role: "user", content: "x" },
        {
          role: "assistant",
          content: [
            { type: "server_tool_use", id: "srvtoolu_1", name: "openrouter:datetime", input: {} },
            { type: "openrouter_datetime_tool_result", tool_use_id: "srvtoolu_1", content: { datetime: "2025-01-01T00:00:00.000Z", timezone: "UTC" } },
            { type: "tool_use", id: "toolu_1", name: "ToolSearch", input: { query: "select:get_weather" } },
          ],
        },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: "1 found" }, { type: "tool_reference", tool_name: "get_weather" }] }] },
      ],
    });
    expect(request.messages[1]!.parts[0]).toMatchObject({ type: "server-tool", name: "service:datetime", result: { timezone: "UTC" } });
    expect(request.messages[2]!.parts[0]).toEqual({ type: "tool-result", callId: "toolu_1", name: "ToolSearch", content: [{ type: "text", text: "1 found" }], toolReferences: ["get_weather"] });
  });
});
