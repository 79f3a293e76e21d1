/**
 * `POST /messages` accepts every field of the spec's Messages request table (and the fields Anthropic
 * clients send that the spec leaves unnamed), carries them to a native Anthropic upstream, and rejects the spec's
 * invalid combinations with 400 and the error envelope before any upstream is called.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { ADAPTERS, replyOf, wireFamily, type AdapterId } from "../support/fake-upstream/fixtures.ts";
import { PNG_DATA_URL, upstreamCall } from "./support/matrix.ts";
import { MODEL, startConformance, type Conformance } from "./support/setup.ts";

let c: Conformance;
beforeAll(async () => void (c = await startConformance()));
afterAll(() => c.close());
beforeEach(() => c.fake.reset());

type Json = Record<string, unknown>;
const SIGNATURE = "EuYBCkQYAiJAgCs1le6/Pol5Z4/JMomVOouGrWdhYNsH3ukzUECbB6iWrSQtsQuRHJID6lWV9Fb";
const SCHEMA = { type: "object", properties: { answer: { type: "string" } }, required: ["answer"], additionalProperties: false };

/** A body using every field of the spec's table plus the Anthropic-client fields. */
function everyField(): Json {
  return {
    model: MODEL.anthropic,
    max_tokens: 4096,
    system: [{ type: "text", text: "You are a weather bot.", cache_control: { type: "ephemeral", ttl: "1h" } }],
    messages: [
      { role: "user", content: "What's the weather in Paris?" },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "I should call the tool.", signature: SIGNATURE },
          { type: "redacted_thinking", data: "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB8URj2pLmN7" },
          { type: "tool_use", id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", name: "get_weather", input: { city: "Paris" } },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", content: [{ type: "text", text: "18°C, sunny" }], cache_control: { type: "ephemeral" } },
          { type: "image", source: { type: "base64", media_type: "image/png", data: PNG_DATA_URL.split(",")[1] } },
          { type: "document", source: { type: "text", media_type: "text/plain", data: "Forecast: sunny all week." }, title: "forecast.txt" },
          { type: "text", text: "Summarise as JSON." },
        ],
      },
    ],
    cache_control: { type: "ephemeral" },
    fallbacks: [{ model: MODEL.gemini }, { model: MODEL.openai }],
    output_config: { effort: "high", format: { type: "json_schema", schema: SCHEMA } },
    plugins: [],
    provider: { allow_fallbacks: true },
    route: "fallback",
    session_id: "sess_2f8a6c1e",
    speed: "fast",
    stop_server_tools_when: [{ type: "step_count_is", step_count: 3 }],
    trace: { trace_id: "trace-123", span_name: "weather" },
    user: "end-user-42",
    tools: [{ name: "get_weather", description: "Weather", input_schema: { type: "object", properties: { city: { type: "string" } } }, cache_control: { type: "ephemeral" } }],
    tool_choice: { type: "auto", disable_parallel_tool_use: true },
    thinking: { type: "enabled", budget_tokens: 2048 },
    stop_sequences: ["\n\nHuman:"],
    stream: false,
    temperature: 1,
    top_p: 0.99,
    top_k: 40,
    metadata: { user_id: "end-user-42" },
    context_management: { edits: [{ type: "clear_tool_uses_20250919" }] },
  };
}

async function post(body: Json, headers: Record<string, string> = {}): Promise<{ status: number; body: Json }> {
  const res = await c.gw.request("/messages", { method: "POST", json: body, headers });
  return { status: res.status, body: (await res.json()) as Json };
}

describe("every field of the Messages request", () => {
  test("accepted (x-api-key auth) and carried to a native Anthropic upstream", async () => {
    c.fake.enqueue(replyOf("anthropic", "text", false));
    const res = await c.gw.request("/messages", {
      method: "POST",
      key: null,
      json: everyField(),
      headers: { "x-api-key": c.gw.inferenceKey, "anthropic-version": "2023-06-01", "anthropic-beta": "context-management-2025-06-27", "x-service-metadata": "enabled" },
    });
    const body = (await res.json()) as Json;
    expect(res.status).toBe(200);
    expect(body.type).toBe("message");
    const sent = upstreamCall(c.fake, "anthropic", false);
    const wire = sent.body;
    expect(c.fake.last().headers["anthropic-beta"]).toBe("context-management-2025-06-27");
    expect(wire.max_tokens).toBe(4096);
    expect(wire.system).toEqual([{ type: "text", text: "You are a weather bot.", cache_control: { type: "ephemeral", ttl: "1h" } }]);
    expect(wire.cache_control).toEqual({ type: "ephemeral" });
    expect(wire.thinking).toEqual({ type: "enabled", budget_tokens: 2048 });
    expect(wire.output_config).toEqual({ effort: "high", format: { type: "json_schema", schema: SCHEMA } });
    expect(wire.speed).toBe("fast");
    expect(wire.stop_sequences).toEqual(["\n\nHuman:"]);
    expect(wire.temperature).toBe(1);
    expect(wire.top_p).toBe(0.99);
    expect(wire.metadata).toEqual({ user_id: "end-user-42" });
    expect(wire.tool_choice).toEqual({ type: "auto", disable_parallel_tool_use: true });
    expect(wire.tools).toEqual([{ name: "get_weather", description: "Weather", input_schema: { type: "object", properties: { city: { type: "string" } } }, cache_control: { type: "ephemeral" } }]);
    expect(wire.context_management).toEqual({ edits: [{ type: "clear_tool_uses_20250919" }] });
    // Gateway-level fields are consumed by the gateway, never sent upstream.
    for (const key of ["fallbacks", "plugins", "provider", "route", "session_id", "stop_server_tools_when", "trace", "user", "models"]) expect(wire).not.toHaveProperty(key);
    // Content blocks pass through with their signatures and cache marks.
    const messages = wire.messages as Array<{ role: string; content: Json[] }>;
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(messages[1]?.content.map((b) => b.type)).toEqual(["thinking", "redacted_thinking", "tool_use"]);
    expect(messages[1]?.content[0]).toEqual({ type: "thinking", thinking: "I should call the tool.", signature: SIGNATURE });
    expect(messages[2]?.content.map((b) => b.type)).toEqual(["tool_result", "image", "document", "text"]);
    expect(messages[2]?.content[0]).toMatchObject({ tool_use_id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", cache_control: { type: "ephemeral" } });
    // Anthropic rejects top_k while thinking: dropped, and said so.
    expect(wire).not.toHaveProperty("top_k");
    const warnings = ((body.service_metadata as Json).warnings as Array<{ field: string }>).map((w) => w.field);
    expect(warnings).toContain("top_k");
  });

  test("speed `standard`, a 256-character session_id and a string system prompt are accepted", async () => {
    c.fake.enqueue(replyOf("anthropic", "text", false));
    const res = await post({ model: MODEL.anthropic, max_tokens: 64, system: "Be brief.", speed: "standard", session_id: "s".repeat(256), messages: [{ role: "user", content: "Hi" }] });
    expect(res.status).toBe(200);
    const wire = upstreamCall(c.fake, "anthropic", false).body;
    expect(wire.speed).toBe("standard");
    expect(wire.system).toBe("Be brief.");
  });
});

describe("Messages options in every upstream's dialect", () => {
  const body = (model: string): Json => ({
    model,
    max_tokens: 300,
    messages: [{ role: "user", content: "Weather in Paris as JSON?" }],
    output_config: { effort: "high", format: { type: "json_schema", schema: SCHEMA } },
    stop_sequences: ["END"],
    temperature: 0.2,
    tools: [{ name: "get_weather", input_schema: { type: "object", properties: { city: { type: "string" } } } }],
    tool_choice: { type: "any" },
  });
  const expected: Record<AdapterId, Json> = {
    openai: {
      reasoning_effort: "high",
      response_format: { type: "json_schema", json_schema: { name: "response", schema: SCHEMA } },
      stop: ["END"],
      temperature: 0.2,
      tool_choice: "required",
      max_completion_tokens: 300,
    },
    "openai-responses": { reasoning: { effort: "high" }, text: { format: { type: "json_schema", name: "response", schema: SCHEMA } }, temperature: 0.2, tool_choice: "required", max_output_tokens: 300 },
    anthropic: { output_config: { effort: "high", format: { type: "json_schema", schema: SCHEMA } }, stop_sequences: ["END"], temperature: 0.2, tool_choice: { type: "any" }, max_tokens: 300 },
    gemini: {
      generationConfig: {
        temperature: 0.2,
        maxOutputTokens: 300,
        stopSequences: ["END"],
        responseMimeType: "application/json",
        responseJsonSchema: SCHEMA,
        thinkingConfig: { thinkingBudget: 24576, includeThoughts: true },
      },
      toolConfig: { functionCallingConfig: { mode: "ANY" } },
    },
    // Claude Sonnet 4.5 on Bedrock: Converse's own structured outputs (the schema as a JSON string) and effort.
    bedrock: {
      outputConfig: { effort: "high", textFormat: { type: "json_schema", structure: { jsonSchema: { schema: JSON.stringify(SCHEMA), name: "response" } } } },
      inferenceConfig: { maxTokens: 300, stopSequences: ["END"], temperature: 0.2 },
      toolConfig: { toolChoice: { any: {} } },
    },
    // Google Vertex AI: Gemini's and Anthropic's own dialects (Claude's body without its model).
    vertex: {
      generationConfig: {
        temperature: 0.2,
        maxOutputTokens: 300,
        stopSequences: ["END"],
        responseMimeType: "application/json",
        responseJsonSchema: SCHEMA,
        thinkingConfig: { thinkingBudget: 24576, includeThoughts: true },
      },
      toolConfig: { functionCallingConfig: { mode: "ANY" } },
    },
    "vertex-anthropic": { output_config: { effort: "high", format: { type: "json_schema", schema: SCHEMA } }, stop_sequences: ["END"], temperature: 0.2, tool_choice: { type: "any" }, max_tokens: 300 },
    // Azure OpenAI: OpenAI's own dialects.
    azure: {
      reasoning_effort: "high",
      response_format: { type: "json_schema", json_schema: { name: "response", schema: SCHEMA } },
      stop: ["END"],
      temperature: 0.2,
      tool_choice: "required",
      max_completion_tokens: 300,
    },
    "azure-responses": { reasoning: { effort: "high" }, text: { format: { type: "json_schema", name: "response", schema: SCHEMA } }, temperature: 0.2, tool_choice: "required", max_output_tokens: 300 },
  };
  for (const adapter of ADAPTERS) {
    test(`${adapter}: effort, structured output, stop sequences, sampling and tool_choice`, async () => {
      c.fake.enqueue(replyOf(adapter, "text", false));
      const res = await post(body(MODEL[adapter]), { "x-service-metadata": "enabled" });
      expect(res.status).toBe(200);
      expect(upstreamCall(c.fake, adapter, false).body).toMatchObject(expected[adapter]);
      // Responses has no stop sequences: reported, not dropped silently.
      const fields = (((res.body.service_metadata as Json).warnings as Array<{ field: string }> | undefined) ?? []).map((w) => w.field);
      if (wireFamily(adapter) === "openai-responses") expect(fields).toContain("stop");
      else expect(fields).not.toContain("stop");
    });
  }
});

describe("rejected with 400 and the error envelope, before any upstream call", () => {
  const base = (): Json => ({ model: MODEL.anthropic, max_tokens: 64, messages: [{ role: "user", content: "Hi" }] });
  const cases: Array<[string, Json, Record<string, string>?]> = [
    ["more than 3 fallbacks", { ...base(), fallbacks: [{ model: MODEL.gemini }, { model: MODEL.openai }, { model: MODEL["openai-responses"] }, { model: MODEL.anthropic }] }],
    ["a fallback entry with a field other than model", { ...base(), fallbacks: [{ model: MODEL.gemini, provider: { order: ["up-gemini"] } }] }],
    ["a fallback entry without model", { ...base(), fallbacks: [{}] }],
    ["fallbacks combined with models", { ...base(), fallbacks: [{ model: MODEL.gemini }], models: [MODEL.openai] }],
    ["session_id longer than 256 characters", { ...base(), session_id: "s".repeat(257) }],
    ["x-session-id header longer than 256 characters", base(), { "x-session-id": "s".repeat(257) }],
    ["speed outside fast | standard", { ...base(), speed: "turbo" }],
    ["user longer than 256 characters", { ...base(), user: "u".repeat(257) }],
    ["a plugin this gateway does not have", { ...base(), plugins: [{ id: "web" }] }],
    ["tool_choice `tool` without a name", { ...base(), tools: [{ name: "f", input_schema: { type: "object" } }], tool_choice: { type: "tool" } }],
    ["max_tokens 0", { ...base(), max_tokens: 0 }],
    ["no messages", { model: MODEL.anthropic, max_tokens: 64 }],
    ["a tool_use block in a user turn", { ...base(), messages: [{ role: "user", content: [{ type: "tool_use", id: "t", name: "f", input: {} }] }] }],
    ["thinking without budget_tokens", { ...base(), thinking: { type: "enabled" } }],
  ];
  for (const [name, body, headers] of cases) {
    test(name, async () => {
      const res = await post(body, headers);
      expect(res.status).toBe(400);
      const error = res.body.error as { code: number; message: string; metadata: Json };
      expect(error.code).toBe(400);
      expect(error.metadata.error_type).toBe("invalid_request");
      expect(error.message.length).toBeGreaterThan(0);
      expect(res.body).toHaveProperty("user_id");
      expect(c.fake.requests).toHaveLength(0);
    });
  }

  test("authentication is checked before the body: no key → 401 even for an invalid body", async () => {
    const res = await c.gw.request("/messages", { method: "POST", key: null, json: { messages: "nope" } });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { metadata: Json } }).error.metadata.error_type).toBe("authentication");
  });
});
