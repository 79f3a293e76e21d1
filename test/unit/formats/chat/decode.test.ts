/** decodeChat: every top-level field mapping and the 400 rules (spec "Chat-completions request", "Limits"). */
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { isGatewayError } from "../../../../core/errors.ts";
import { decodeChat } from "../../../../core/formats/chat/decode.ts";
import { checkMetadata } from "../../../../core/formats/chat/metadata.ts";
import { ChatRequestSchema } from "../../../../core/formats/chat/schema.ts";

const validator = TypeCompiler.Compile(ChatRequestSchema);
const none = new Headers();
const messages = [{ role: "user", content: "hi" }];

/** Decodes only after the compiled schema accepted the body, as the edge does. */
function decode(body: Record<string, unknown>, headers: Headers = none) {
  expect([...validator.Errors(body)].map((e) => `${e.path}: ${e.message}`)).toEqual([]);
  return decodeChat(body, headers);
}

function thrown(run: () => unknown) {
  try {
    run();
  } catch (error) {
    if (isGatewayError(error)) return error;
    throw error;
  }
  throw new Error("expected a GatewayError");
}

describe("decodeChat field mapping", () => {
  test("a minimal body", () => {
    const body = { model: "openai/gpt-4o", messages };
    expect(decode(body)).toEqual({
      format: "chat",
      model: "openai/gpt-4o",
      models: [],
      system: [],
      messages: [{ role: "user", parts: [{ type: "text", text: "hi" }] }],
      tools: [],
      sampling: {},
      stream: false,
      plugins: [],
      warnings: [],
      original: body,
    });
  });

  test("every routing, sampling, output and identity field", () => {
    const body = {
      model: "anthropic/claude-sonnet-4",
      models: ["openai/gpt-4o"],
      messages,
      temperature: 0.5,
      top_p: 0.9,
      top_k: 40,
      min_p: 0.05,
      top_a: 0.1,
      frequency_penalty: -1,
      presence_penalty: 1,
      repetition_penalty: 1.1,
      seed: 7,
      stop: "END",
      logprobs: true,
      top_logprobs: 5,
      logit_bias: { "50256": -100 },
      max_completion_tokens: 512,
      stream: true,
      stream_options: { include_usage: true },
      parallel_tool_calls: false,
      tool_choice: { type: "function", function: { name: "get_weather" } },
      tools: [
        {
          type: "function",
          function: { name: "get_weather", description: "Weather", parameters: { type: "object" }, strict: true },
          cache_control: { type: "ephemeral" },
        },
        { type: "service:web_search", parameters: { max_results: 3 } },
      ],
      response_format: { type: "json_schema", json_schema: { name: "out", schema: { type: "object" }, strict: true } },
      verbosity: "low",
      prediction: { type: "content", content: "draft" },
      modalities: ["text"],
      reasoning: { effort: "high", summary: "auto", max_tokens: 2000, mode: "pro" },
      reasoning_effort: "high",
      metadata: { team: "search" },
      plugins: [{ id: "response-healing" }],
      provider: { order: ["anthropic"], allow_fallbacks: false },
      route: "fallback",
      service_tier: "fast",
      session_id: "sess-1",
      stop_server_tools_when: [{ type: "step_count_is", step_count: 3 }],
      cache_control: { type: "ephemeral", ttl: "1h" },
      prompt_cache_key: "pk",
      prompt_cache_options: { mode: "explicit", ttl: "5m" },
      image_config: { aspect_ratio: "16:9" },
      debug: { echo_upstream_body: true },
      trace: { trace_id: "t1", custom: 1 },
      user: "user-42",
    };
    const { original, ...request } = decode(body, new Headers({ "x-session-id": "from-header" }));
    expect(original).toEqual(body);
    expect(request).toEqual({
      format: "chat",
      model: "anthropic/claude-sonnet-4",
      models: ["openai/gpt-4o"],
      system: [],
      messages: [{ role: "user", parts: [{ type: "text", text: "hi" }] }],
      tools: [
        {
          kind: "function",
          name: "get_weather",
          description: "Weather",
          parameters: { type: "object" },
          strict: true,
          cache: { type: "ephemeral" },
        },
        { kind: "server", type: "service:web_search", parameters: { max_results: 3 } },
      ],
      toolChoice: { type: "tool", name: "get_weather" },
      parallelToolCalls: false,
      sampling: {
        temperature: 0.5,
        topP: 0.9,
        topK: 40,
        minP: 0.05,
        frequencyPenalty: -1,
        presencePenalty: 1,
        repetitionPenalty: 1.1,
        seed: 7,
        stop: ["END"],
        logprobs: true,
        topLogprobs: 5,
        logitBias: { "50256": -100 },
      },
      maxTokens: 512,
      output: { format: { type: "json_schema", name: "out", schema: { type: "object" }, strict: true }, verbosity: "low" },
      reasoning: { effort: "high", summary: "auto", maxTokens: 2000, extra: { mode: "pro" } },
      stream: true,
      includeUsage: true,
      provider: { order: ["anthropic"], allow_fallbacks: false, sort: { partition: "model" } },
      serviceTier: "priority",
      sessionId: "sess-1",
      plugins: [{ id: "response-healing" }],
      stopWhen: [{ type: "step_count_is", step_count: 3 }],
      cache: { control: { type: "ephemeral", ttl: "1h" }, promptCacheKey: "pk", options: { mode: "explicit", ttl: "5m" } },
      metadata: { team: "search" },
      user: "user-42",
      trace: { trace_id: "t1", custom: 1 },
      debug: { echoUpstreamBody: true },
      modalities: ["text"],
      passthrough: {
        prediction: { type: "content", content: "draft" },
        top_a: 0.1,
        image_config: { aspect_ratio: "16:9" },
      },
      warnings: [],
    });
  });

  test("nulls mean absent", () => {
    const request = decode({
      messages,
      temperature: null,
      stop: null,
      service_tier: null,
      reasoning_effort: null,
      metadata: null,
      route: null,
      safety_identifier: null,
      max_tokens: null,
    });
    expect(request.sampling).toEqual({});
    for (const key of ["serviceTier", "reasoning", "metadata", "passthrough", "safetyIdentifier", "maxTokens"]) {
      expect(request).not.toHaveProperty(key);
    }
  });

  test("tool_choice strings and response_format kinds", () => {
    for (const choice of ["none", "auto", "required"] as const) {
      expect(decode({ messages, tool_choice: choice }).toolChoice).toEqual({ type: choice });
    }
    expect(decode({ messages, response_format: { type: "json_object" } }).output).toEqual({ format: { type: "json_object" } });
    expect(decode({ messages, response_format: { type: "text" } }).output).toEqual({ format: { type: "text" } });
  });

  test("stop as a list is kept as a list", () => {
    expect(decode({ messages, stop: ["a", "b"] }).sampling.stop).toEqual(["a", "b"]);
  });

  test("reasoning_effort alone sets reasoning.effort", () => {
    expect(decode({ messages, reasoning_effort: "minimal" }).reasoning).toEqual({ effort: "minimal" });
  });

  test("service_tier values other than fast pass through", () => {
    expect(decode({ messages, service_tier: "flex" }).serviceTier).toBe("flex");
  });
});

describe("decodeChat rules", () => {
  test("reasoning_effort differing from reasoning.effort is a 400 naming both", () => {
    const error = thrown(() => decode({ messages, reasoning_effort: "high", reasoning: { effort: "low" } }));
    expect(error.type).toBe("invalid_request");
    expect(error.status).toBe(400);
    expect(error.message).toContain("reasoning_effort");
    expect(error.message).toContain("reasoning.effort");
  });

  test("max_completion_tokens wins over a differing max_tokens, with a warning", () => {
    const request = decode({ messages, max_completion_tokens: 100, max_tokens: 50 });
    expect(request.maxTokens).toBe(100);
    expect(request.warnings).toEqual([expect.objectContaining({ code: "conflicting_field", field: "max_tokens" })]);
    expect(decode({ messages, max_tokens: 50 }).maxTokens).toBe(50);
    expect(decode({ messages, max_completion_tokens: 50, max_tokens: 50 }).warnings).toEqual([]);
  });

  test("unknown top-level fields are accepted and warned", () => {
    const request = decode({ messages, n: 2, store: true });
    expect(request.warnings).toEqual([
      { code: "unknown_field", field: "n", message: "Unknown field `n` was ignored" },
      { code: "unknown_field", field: "store", message: "Unknown field `store` was ignored" },
    ]);
  });

  test("safety_identifier is stored only as its SHA-256 hex, also in original", () => {
    const raw = "end-user-7";
    const hash = createHash("sha256").update(raw).digest("hex");
    const request = decode({ messages, safety_identifier: raw });
    expect(request.safetyIdentifier).toBe(hash);
    expect(request.original.safety_identifier).toBe(hash);
    expect(JSON.stringify(request)).not.toContain(raw);
  });

  test("session_id: body wins, else the x-session-id header (≤256 chars)", () => {
    const headers = new Headers({ "x-session-id": "h" });
    expect(decode({ messages, session_id: "b" }, headers).sessionId).toBe("b");
    expect(decode({ messages }, headers).sessionId).toBe("h");
    expect(decode({ messages }, new Headers({ "x-session-id": "s".repeat(256) })).sessionId).toHaveLength(256);
    const error = thrown(() => decode({ messages }, new Headers({ "x-session-id": "s".repeat(257) })));
    expect(error.status).toBe(400);
    expect(error.message).toContain("x-session-id");
  });
});

describe("checkMetadata (decode's re-check, for callers that skipped the schema)", () => {
  const messageOf = (metadata: Record<string, unknown>) => thrown(() => checkMetadata(metadata)).message;

  test("accepts the limits exactly", () => {
    const full = Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`${i}`.padEnd(64, "k"), "v".repeat(512)]));
    expect(checkMetadata(full)).toEqual(full);
    expect(checkMetadata(null)).toBeUndefined();
  });
  test("17 pairs", () => {
    expect(messageOf(Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, "v"])))).toContain("at most 16");
  });
  test("a 65-character key is named", () => {
    const key = "k".repeat(65);
    expect(messageOf({ [key]: "v" })).toContain(key);
  });
  test("a key with brackets is named", () => {
    expect(messageOf({ "tags[0]": "v" })).toBe('`metadata` key "tags[0]" must not contain brackets');
  });
  test("a 513-character value names its key", () => {
    expect(messageOf({ note: "v".repeat(513) })).toContain('"note"');
  });
  test("a non-string value names its key", () => {
    expect(messageOf({ count: 3 })).toContain('"count"');
  });
});

describe("decodeChat tools in the clients' own spellings", () => {
  test("openrouter:<tool> is service:<tool>, spelling kept, in tools, tool_choice and stop conditions", () => {
    const request = decode({
      messages,
      tools: [{ type: "openrouter:datetime", parameters: { timezone: "UTC" } }, { type: "service:web_fetch" }],
      tool_choice: { type: "openrouter:datetime" },
      stop_server_tools_when: [{ type: "has_tool_call", tool_name: "openrouter:datetime" }],
    });
    expect(request.tools).toEqual([{ kind: "server", type: "service:datetime", parameters: { timezone: "UTC" }, spelling: "openrouter:datetime" }, { kind: "server", type: "service:web_fetch" }]);
    expect(request.toolChoice).toEqual({ type: "tool", name: "service:datetime" });
    expect(request.stopWhen).toEqual([{ type: "has_tool_call", tool_name: "service:datetime" }]);
  });

  test("defer_loading beside cache_control or inside function is the function's deferral", () => {
    const fn = { name: "f", parameters: { type: "object" } };
    const request = decode({ messages, tools: [{ type: "function", function: fn, defer_loading: true }, { type: "function", function: { ...fn, name: "g", defer_loading: true } }, { type: "function", function: { ...fn, name: "h" } }] });
    expect(request.tools.map((tool) => tool.kind === "function" && tool.deferLoading)).toEqual([true, true, undefined]);
  });

  test("OpenAI's web search filters become the search's domain lists", () => {
    const request = decode({ messages, tools: [{ type: "web_search", filters: { allowed_domains: ["a.example"], blocked_domains: ["b.example"] }, external_web_access: true }] });
    expect(request.tools).toEqual([{ kind: "server", type: "service:web_search", parameters: { allowed_domains: ["a.example"], excluded_domains: ["b.example"] } }]);
    const unknown = decode({ messages, tools: [{ type: "web_search", filters: { allowed_domains: null, regions: ["eu"] } }] });
    expect(unknown.tools).toEqual([{ kind: "server", type: "service:web_search", parameters: { filters: { regions: ["eu"] } } }]);
  });
});
