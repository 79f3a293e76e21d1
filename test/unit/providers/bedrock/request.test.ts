/** providers/bedrock/request.ts (+ messages, tools, reasoning, output): canonical request → Converse body. */
import { describe, expect, test } from "bun:test";
import { messagesFormat } from "../../../../core/formats/messages/index.ts";
import { toConverseBody } from "../../../../providers/bedrock/request.ts";
import { canonicalRequest } from "../helpers.ts";
import { CLAUDE, endpointFor, LLAMA, NOVA, OLD_CLAUDE } from "./support.ts";

const SIGNATURE = "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds";
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const schema = { type: "object", properties: { location: { type: "string" } }, required: ["location"] };
const fields = (warnings: Array<{ field?: string }>) => warnings.map((w) => w.field);

describe("a Messages client's request to Claude on Bedrock", () => {
  const client = {
    model: "aws/claude",
    max_tokens: 16000,
    system: [{ type: "text", text: "You are a weather bot.", cache_control: { type: "ephemeral" } }],
    thinking: { type: "enabled", budget_tokens: 10000 },
    tools: [{ name: "get_weather", description: "Current weather", input_schema: schema, cache_control: { type: "ephemeral", ttl: "1h" } }],
    tool_choice: { type: "auto" },
    messages: [
      { role: "user", content: [{ type: "text", text: "Weather in SF?" }, { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } }] },
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
          { type: "tool_result", tool_use_id: "toolu_02", content: "not found", is_error: true },
          { type: "document", source: { type: "base64", media_type: "application/pdf", data: "JVBERi0xLjQK" }, title: "report.pdf" },
          { type: "text", text: "Thanks!" },
        ],
      },
    ],
    stop_sequences: ["###"],
  };

  test("the exact Converse body", () => {
    const request = messagesFormat.decode(client, new Headers());
    const body = toConverseBody(request, endpointFor(CLAUDE));
    expect(body).toEqual({
      messages: [
        { role: "user", content: [{ text: "Weather in SF?" }, { image: { format: "png", source: { bytes: PNG } } }] },
        {
          role: "assistant",
          content: [
            { reasoningContent: { reasoningText: { text: "Need the tool.", signature: SIGNATURE } } },
            { reasoningContent: { redactedContent: "EmwKAhgBEgy3va3p" } },
            { text: "Checking." },
            { toolUse: { toolUseId: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", name: "get_weather", input: { location: "San Francisco, CA" } } },
          ],
        },
        {
          role: "user",
          content: [
            { toolResult: { toolUseId: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", content: [{ text: "15C, foggy" }] } },
            { cachePoint: { type: "default" } },
            { toolResult: { toolUseId: "toolu_02", content: [{ text: "not found" }], status: "error" } },
            { document: { format: "pdf", name: "report", source: { bytes: "JVBERi0xLjQK" } } },
            { text: "Thanks!" },
          ],
        },
      ],
      system: [{ text: "You are a weather bot." }, { cachePoint: { type: "default" } }],
      inferenceConfig: { maxTokens: 16000, stopSequences: ["###"] },
      additionalModelRequestFields: { thinking: { type: "enabled", budget_tokens: 10000 } },
      toolConfig: {
        tools: [{ toolSpec: { name: "get_weather", description: "Current weather", inputSchema: { json: schema } } }, { cachePoint: { type: "default", ttl: "1h" } }],
        toolChoice: { auto: {} },
      },
    });
    expect(request.warnings).toEqual([]);
  });

  test("a top-level cache_control closes the conversation with a cache point", () => {
    const request = messagesFormat.decode({ model: "m", max_tokens: 100, cache_control: { type: "ephemeral" }, messages: [{ role: "user", content: "Hi" }] }, new Headers());
    expect(toConverseBody(request, endpointFor(CLAUDE)).messages).toEqual([{ role: "user", content: [{ text: "Hi" }, { cachePoint: { type: "default" } }] }]);
  });

  test("adaptive thinking, and a Messages client's own effort in outputConfig", () => {
    const adaptive = messagesFormat.decode({ model: "m", max_tokens: 100, messages: [{ role: "user", content: "x" }], thinking: { type: "adaptive" } }, new Headers());
    expect(toConverseBody(adaptive, endpointFor(CLAUDE)).additionalModelRequestFields).toEqual({ thinking: { type: "adaptive" } });
    const effort = messagesFormat.decode({ model: "m", max_tokens: 100, messages: [{ role: "user", content: "x" }], output_config: { effort: "high" } }, new Headers());
    const body = toConverseBody(effort, endpointFor(CLAUDE));
    expect(body.outputConfig).toEqual({ effort: "high" });
    expect(body.additionalModelRequestFields).toBeUndefined();
  });
});

describe("other formats' requests", () => {
  test("effort → a thinking budget; max tokens grow to fit it; sampling Claude refuses while thinking is dropped with warnings", () => {
    const request = canonicalRequest({ reasoning: { effort: "high" }, sampling: { temperature: 0.7, topK: 5, topP: 0.9, seed: 7 } });
    const body = toConverseBody(request, endpointFor(CLAUDE));
    expect(body.additionalModelRequestFields).toEqual({ thinking: { type: "enabled", budget_tokens: 16384 } });
    expect(body.inferenceConfig).toEqual({ maxTokens: 16384 + 4096 });
    expect(fields(request.warnings)).toEqual(["seed", "max_tokens", "temperature", "top_k", "top_p"]);
    expect(request.warnings.find((w) => w.field === "max_tokens")?.code).toBe("defaulted");
  });

  test("a budget above max_tokens is lowered; one that cannot fit turns thinking off with a warning", () => {
    const lowered = toConverseBody(canonicalRequest({ maxTokens: 5000, reasoning: { enabled: true, maxTokens: 8000 } }), endpointFor(CLAUDE));
    expect(lowered.additionalModelRequestFields).toEqual({ thinking: { type: "enabled", budget_tokens: 4999 } });
    const off = canonicalRequest({ maxTokens: 500, reasoning: { effort: "low" } });
    expect(toConverseBody(off, endpointFor(CLAUDE)).additionalModelRequestFields).toBeUndefined();
    expect(fields(off.warnings)).toContain("reasoning");
  });

  test("top_k goes to Claude's own fields; other models have no place for it, nor for reasoning", () => {
    expect(toConverseBody(canonicalRequest({ sampling: { topK: 40 } }), endpointFor(CLAUDE)).additionalModelRequestFields).toEqual({ top_k: 40 });
    const llama = canonicalRequest({ sampling: { topK: 40 }, reasoning: { effort: "high" } });
    const body = toConverseBody(llama, endpointFor(LLAMA));
    expect(body.additionalModelRequestFields).toBeUndefined();
    expect(fields(llama.warnings)).toEqual(["top_k", "reasoning"]);
    // Reasoning switched off asks for nothing: no warning.
    const off = canonicalRequest({ reasoning: { enabled: false } });
    toConverseBody(off, endpointFor(LLAMA));
    expect(off.warnings).toEqual([]);
  });

  test("tool choices: required → any, a named tool → tool; parallel_tool_calls false is warned about", () => {
    const tools = [{ kind: "function" as const, name: "get_weather", parameters: schema }];
    const required = toConverseBody(canonicalRequest({ tools, toolChoice: { type: "required" } }), endpointFor(CLAUDE));
    expect(required.toolConfig?.toolChoice).toEqual({ any: {} });
    const named = canonicalRequest({ tools, toolChoice: { type: "tool", name: "get_weather" }, parallelToolCalls: false });
    expect(toConverseBody(named, endpointFor(CLAUDE)).toolConfig?.toolChoice).toEqual({ tool: { name: "get_weather" } });
    expect(fields(named.warnings)).toEqual(["parallel_tool_calls"]);
  });

  test("tool_choice none: no tools are sent, unless the conversation holds tool calls (then auto, with a warning)", () => {
    const tools = [{ kind: "function" as const, name: "get_weather", parameters: schema }];
    const fresh = canonicalRequest({ tools, toolChoice: { type: "none" } });
    expect(toConverseBody(fresh, endpointFor(CLAUDE)).toolConfig).toBeUndefined();
    expect(fresh.warnings).toEqual([]);
    const withHistory = canonicalRequest({
      tools,
      toolChoice: { type: "none" },
      messages: [
        { role: "user", parts: [{ type: "text", text: "Weather?" }] },
        { role: "assistant", parts: [{ type: "tool-call", id: "call_1", name: "get_weather", arguments: '{"location":"Paris"}' }] },
        { role: "tool", parts: [{ type: "tool-result", callId: "call_1", content: "18C" }] },
      ],
    });
    expect(toConverseBody(withHistory, endpointFor(CLAUDE)).toolConfig?.toolChoice).toEqual({ auto: {} });
    expect(fields(withHistory.warnings)).toEqual(["tool_choice"]);
  });

  test("a replayed conversation with tool calls but no tools declares them, as Bedrock requires", () => {
    const request = canonicalRequest({
      messages: [
        { role: "user", parts: [{ type: "text", text: "Weather?" }] },
        { role: "assistant", parts: [{ type: "tool-call", id: "functions.get_weather:0", name: "get_weather", arguments: "{}" }] },
        { role: "tool", parts: [{ type: "tool-result", callId: "functions.get_weather:0", content: "18C" }] },
      ],
    });
    const body = toConverseBody(request, endpointFor(CLAUDE));
    expect(body.toolConfig).toEqual({ tools: [{ toolSpec: { name: "get_weather", inputSchema: { json: { type: "object" } } } }] });
    expect(body.messages[1]?.content).toEqual([{ toolUse: { toolUseId: "functions_get_weather_0", name: "get_weather", input: {} } }]);
    expect(request.warnings.map((w) => [w.field, w.code])).toEqual([["tools", "defaulted"]]);
  });

  test("images: bytes and S3 are sent; an http(s) URL, which Bedrock cannot fetch, is dropped with a warning", () => {
    const request = canonicalRequest({
      messages: [
        {
          role: "user",
          parts: [
            { type: "text", text: "Compare" },
            { type: "image", url: `data:image/jpeg;base64,${PNG}` },
            { type: "image", url: "s3://my-bucket/photos/tower.webp" },
            { type: "image", url: "https://example.com/tower.png" },
          ],
        },
      ],
    });
    expect(toConverseBody(request, endpointFor(NOVA)).messages[0]?.content).toEqual([
      { text: "Compare" },
      { image: { format: "jpeg", source: { bytes: PNG } } },
      { image: { format: "webp", source: { s3Location: { uri: "s3://my-bucket/photos/tower.webp" } } } },
    ]);
    expect(fields(request.warnings)).toEqual(["messages.image_url"]);
  });

  test("documents get unique Bedrock-safe names; formats Bedrock lacks are dropped with a warning", () => {
    const request = canonicalRequest({
      messages: [
        {
          role: "user",
          parts: [
            { type: "file", data: "data:application/pdf;base64,JVBERi0=", filename: "Q3 report: final.pdf" },
            { type: "file", data: "data:application/pdf;base64,JVBERi0=", filename: "Q3 report- final.pdf" },
            { type: "file", data: "data:text/csv;base64,YSxi" },
            { type: "file", data: "data:application/zip;base64,UEsDBA==" },
            { type: "text", text: "Summarise" },
          ],
        },
      ],
    });
    const content = toConverseBody(request, endpointFor(CLAUDE)).messages[0]?.content;
    expect(content).toEqual([
      { document: { format: "pdf", name: "Q3 report- final", source: { bytes: "JVBERi0=" } } },
      { document: { format: "pdf", name: "Q3 report- final (2)", source: { bytes: "JVBERi0=" } } },
      { document: { format: "csv", name: "document 3", source: { bytes: "YSxi" } } },
      { text: "Summarise" },
    ]);
    expect(fields(request.warnings)).toEqual(["messages.file"]);
  });

  test("reasoning of another family, or unsigned, is not sent back", () => {
    const request = canonicalRequest({
      messages: [
        { role: "user", parts: [{ type: "text", text: "Q" }] },
        { role: "assistant", parts: [{ type: "reasoning", text: "thought", encrypted: "gAAA", format: "openai-responses-v1" }, { type: "text", text: "A" }] },
        { role: "user", parts: [{ type: "text", text: "Q2" }] },
      ],
    });
    expect(toConverseBody(request, endpointFor(CLAUDE)).messages[1]?.content).toEqual([{ text: "A" }]);
    expect(fields(request.warnings)).toEqual(["messages.assistant.reasoning"]);
  });

  test("structured output: outputConfig for models that have it, a forced tool for earlier Claude, a warning for others", () => {
    const format = { type: "json_schema" as const, name: "weather", schema };
    const native = toConverseBody(canonicalRequest({ output: { format } }), endpointFor(CLAUDE));
    expect(native.outputConfig).toEqual({ textFormat: { type: "json_schema", structure: { jsonSchema: { schema: JSON.stringify(schema), name: "weather" } } } });
    const forced = toConverseBody(canonicalRequest({ output: { format } }), endpointFor(OLD_CLAUDE));
    expect(forced.outputConfig).toBeUndefined();
    expect(forced.toolConfig).toEqual({
      tools: [{ toolSpec: { name: "json_answer", description: "Give the answer as this tool's input: a JSON value matching the weather schema.", inputSchema: { json: schema } } }],
      toolChoice: { tool: { name: "json_answer" } },
    });
    const llama = canonicalRequest({ output: { format } });
    expect(toConverseBody(llama, endpointFor(LLAMA)).outputConfig).toBeUndefined();
    expect(fields(llama.warnings)).toEqual(["response_format"]);
    const jsonMode = canonicalRequest({ output: { format: { type: "json_object" } } });
    toConverseBody(jsonMode, endpointFor(CLAUDE));
    expect(fields(jsonMode.warnings)).toEqual(["response_format"]);
    // The provider's option overrides the guess from the model id.
    expect(toConverseBody(canonicalRequest({ output: { format } }), endpointFor(LLAMA, { structured_output: "native" })).outputConfig?.textFormat?.type).toBe("json_schema");
  });

  test("strict tools only where the model has strict tool use", () => {
    const tools = [{ kind: "function" as const, name: "get_weather", parameters: schema, strict: true }];
    const native = toConverseBody(canonicalRequest({ tools }), endpointFor(CLAUDE));
    expect(native.toolConfig?.tools[0]).toEqual({ toolSpec: { name: "get_weather", inputSchema: { json: schema }, strict: true } });
    const old = canonicalRequest({ tools });
    expect(toConverseBody(old, endpointFor(OLD_CLAUDE)).toolConfig?.tools[0]).toEqual({ toolSpec: { name: "get_weather", inputSchema: { json: schema } } });
    expect(fields(old.warnings)).toEqual(["tools[0].strict"]);
  });

  test("service tier, metadata and the fields Bedrock has no place for", () => {
    const request = canonicalRequest({
      serviceTier: "flex",
      metadata: { team: "geo" },
      user: "u-1",
      sampling: { frequencyPenalty: 0.5, logprobs: true },
      cache: { promptCacheKey: "k" },
      passthrough: { route: "fallback", truncation: "auto" },
    });
    const body = toConverseBody(request, endpointFor(CLAUDE));
    expect(body.serviceTier).toEqual({ type: "flex" });
    expect(body.requestMetadata).toEqual({ team: "geo" });
    expect(fields(request.warnings)).toEqual(["frequency_penalty", "logprobs", "user", "prompt_cache_key", "passthrough.truncation"]);
    const scale = canonicalRequest({ serviceTier: "scale" });
    expect(toConverseBody(scale, endpointFor(CLAUDE)).serviceTier).toBeUndefined();
    expect(fields(scale.warnings)).toEqual(["service_tier"]);
  });

  test("a native server tool is refused (400); other server tools are not sent, with a warning", () => {
    const native = canonicalRequest({ tools: [{ kind: "server", type: "service:web_search", parameters: { engine: "native" } }] });
    expect(() => toConverseBody(native, endpointFor(CLAUDE))).toThrow(/not supported by bedrock/);
    const typed = canonicalRequest({ tools: [{ kind: "server", type: "bash_20250124" }] });
    expect(toConverseBody(typed, endpointFor(CLAUDE)).toolConfig).toBeUndefined();
    expect(fields(typed.warnings)).toEqual(["tools[0]"]);
  });
});
