/** Responses body → canonical request: every field, the 400 rules, input items, warnings. */
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { parse, rejection } from "./helpers.ts";

const base = { model: "openai/gpt-5", input: "hi" };

describe("400 rules", () => {
  test("previous_response_id non-null is rejected and tells the user to send the history in input", () => {
    const error = rejection({ ...base, previous_response_id: "resp_123" });
    expect(error.message).toContain("previous_response_id");
    expect(error.message).toContain("full conversation history in `input`");
    expect(parse({ ...base, previous_response_id: null }).messages).toHaveLength(1);
  });

  test("store: true is rejected by the schema and by decode", async () => {
    rejection({ ...base, store: true });
    const { decodeResponses } = await import("../../../../core/formats/responses/decode.ts");
    expect(() => decodeResponses({ ...base, store: true }, new Headers())).toThrow(/store/);
  });

  test("a body with neither input nor prompt is rejected", () => {
    expect(rejection({ model: "m" }).message).toContain("input");
    expect(parse({ model: "m", prompt: { id: "pmpt_1" } }).messages).toEqual([]);
  });

  test("input_image and input_file need a source", () => {
    rejection({ ...base, input: [{ role: "user", content: [{ type: "input_image", detail: "auto" }] }] });
    rejection({ ...base, input: [{ role: "user", content: [{ type: "input_file", filename: "a.pdf" }] }] });
  });
});

describe("input", () => {
  test("a string is one user message", () => {
    expect(parse(base).messages).toEqual([{ role: "user", parts: [{ type: "text", text: "hi" }] }]);
  });

  test("instructions come first in system, then system/developer messages in order", () => {
    const request = parse({
      model: "m",
      instructions: "Be brief.",
      input: [
        { role: "system", content: "Sys." },
        { role: "developer", content: [{ type: "input_text", text: "Dev.", cache_control: { type: "ephemeral" } }] },
        { role: "user", content: "Q" },
      ],
    });
    expect(request.system).toEqual([
      { type: "text", text: "Be brief." },
      { type: "text", text: "Sys." },
      { type: "text", text: "Dev.", cache: { type: "ephemeral" } },
    ]);
    expect(request.messages).toEqual([{ role: "user", parts: [{ type: "text", text: "Q" }] }]);
    expect(request.warnings).toEqual([]);
  });

  test("a system message after the conversation started is hoisted with a warning", () => {
    const request = parse({ model: "m", input: [{ role: "user", content: "Q" }, { role: "system", content: "late" }] });
    expect(request.system).toEqual([{ type: "text", text: "late" }]);
    expect(request.warnings.map((w) => w.code)).toEqual(["approximated"]);
  });

  test("content parts: text, images (URL, data URL, file id), files", () => {
    const request = parse({
      model: "m",
      input: [
        {
          type: "message",
          role: "user",
          content: [
            { type: "input_text", text: "look" },
            { type: "input_image", image_url: "https://x.test/a.png", detail: "high" },
            { type: "input_image", image_url: "data:image/png;base64,iVBOR", detail: "auto" },
            { type: "input_image", file_id: "file-img", detail: "low" },
            { type: "input_file", file_data: "data:application/pdf;base64,JVBER", filename: "a.pdf" },
            { type: "input_file", file_url: "https://x.test/b.pdf" },
            { type: "input_file", file_id: "file-abc" },
          ],
        },
      ],
    });
    expect(request.messages[0]?.parts).toEqual([
      { type: "text", text: "look" },
      { type: "image", url: "https://x.test/a.png", detail: "high" },
      { type: "image", url: "data:image/png;base64,iVBOR", mediaType: "image/png", detail: "auto" },
      { type: "file", data: "file-img" },
      { type: "file", data: "data:application/pdf;base64,JVBER", mediaType: "application/pdf", filename: "a.pdf" },
      { type: "file", data: "https://x.test/b.pdf" },
      { type: "file", data: "file-abc" },
    ]);
    expect(request.warnings.map((w) => w.field)).toEqual(["input[0].content[3]"]);
  });

  test("a multi-turn tool conversation: output items merge into one assistant message, outputs keep call ids", () => {
    const request = parse({
      model: "m",
      input: [
        { role: "user", content: "Weather in Paris and Rome?" },
        {
          type: "reasoning",
          id: "rs_1",
          summary: [{ type: "summary_text", text: "Two calls." }],
          content: [{ type: "reasoning_text", text: "raw thought" }],
          encrypted_content: "gAAAA",
          signature: "sig",
          format: "openai-responses-v1",
          status: "completed",
        },
        {
          id: "msg_1",
          type: "message",
          role: "assistant",
          status: "completed",
          content: [{ type: "output_text", text: "Checking.", annotations: [{ type: "url_citation", url: "https://x.test" }] }, { type: "refusal", refusal: "Not that." }],
        },
        { type: "function_call", id: "fc_1", call_id: "call_1", name: "get_weather", arguments: '{"city":"Paris"}', status: "completed" },
        { type: "function_call", call_id: "call_2", name: "get_weather", arguments: '{"city":"Rome"}' },
        { type: "function_call_output", call_id: "call_1", output: "18C" },
        { type: "function_call_output", call_id: "call_2", output: [{ type: "input_text", text: "21C" }, { type: "input_image", image_url: "https://x.test/r.png", detail: "auto" }] },
        { role: "assistant", content: "Paris 18C, Rome 21C." },
      ],
    });
    expect(request.messages).toEqual([
      { role: "user", parts: [{ type: "text", text: "Weather in Paris and Rome?" }] },
      {
        role: "assistant",
        parts: [
          { type: "reasoning", text: "raw thought", summary: ["Two calls."], signature: "sig", encrypted: "gAAAA", id: "rs_1", format: "openai-responses-v1" },
          { type: "text", text: "Checking.", annotations: [{ type: "url_citation", url: "https://x.test" }] },
          { type: "refusal", text: "Not that." },
          { type: "tool-call", id: "call_1", name: "get_weather", arguments: '{"city":"Paris"}', itemId: "fc_1" },
          { type: "tool-call", id: "call_2", name: "get_weather", arguments: '{"city":"Rome"}' },
        ],
      },
      { role: "tool", parts: [{ type: "tool-result", callId: "call_1", content: "18C" }] },
      {
        role: "tool",
        parts: [{ type: "tool-result", callId: "call_2", content: [{ type: "text", text: "21C" }, { type: "image", url: "https://x.test/r.png", detail: "auto" }] }],
      },
      { role: "assistant", parts: [{ type: "text", text: "Paris 18C, Rome 21C." }] },
    ]);
  });

  test("ids the gateway made up are not mistaken for upstream ids when echoed back", () => {
    const request = parse({
      model: "m",
      input: [
        { id: "rs_gw_gen-9_0", type: "reasoning", summary: [{ type: "summary_text", text: "s" }] },
        { id: "fc_gw_gen-9_1", type: "function_call", call_id: "call_9", name: "f", arguments: "{}" },
      ],
    });
    expect(request.messages[0]?.parts).toEqual([
      { type: "reasoning", text: "", summary: ["s"] },
      { type: "tool-call", id: "call_9", name: "f", arguments: "{}" },
    ]);
  });

  test("unknown item kinds are dropped with a warning naming the item", () => {
    const request = parse({ model: "m", input: [{ role: "user", content: "q" }, { type: "web_search_call", id: "ws_1", status: "completed" }] });
    expect(request.messages).toHaveLength(1);
    expect(request.warnings).toEqual([{ code: "unsupported_item", field: "input[1]", message: expect.stringContaining("web_search_call") }]);
  });

  test("a file in a function_call_output is dropped with a warning", () => {
    const request = parse({ model: "m", input: [{ type: "function_call_output", call_id: "c", output: [{ type: "input_file", file_id: "f" }] }] });
    expect(request.messages[0]?.parts).toEqual([{ type: "tool-result", callId: "c", content: [] }]);
    expect(request.warnings[0]?.field).toBe("input[0].output[0]");
  });
});

describe("fields", () => {
  test("every scalar and object field lands in its canonical place", () => {
    const request = parse(
      {
        model: "openai/gpt-5",
        models: ["anthropic/claude-sonnet-4"],
        input: "hi",
        stream: true,
        max_output_tokens: 500,
        max_tool_calls: 5,
        temperature: 0.3,
        top_p: 0.9,
        top_k: 40,
        frequency_penalty: 0.1,
        presence_penalty: -0.2,
        top_logprobs: 3,
        parallel_tool_calls: false,
        tool_choice: { type: "function", name: "f" },
        tools: [
          { type: "function", name: "f", description: "d", parameters: { type: "object" }, strict: true, async: true, cache_control: { type: "ephemeral", ttl: "1h" } },
          { type: "service:web_search", parameters: { max_results: 3 } },
          { type: "service:datetime" },
        ],
        include: ["reasoning.encrypted_content"],
        modalities: ["text"],
        image_config: { size: "1024x1024" },
        metadata: { team: "a" },
        plugins: [{ id: "response-healing" }],
        prompt: { id: "pmpt_1", variables: { x: "y" } },
        prompt_cache_key: "pck",
        prompt_cache_options: { mode: "explicit", ttl: "1h" },
        cache_control: { type: "ephemeral" },
        provider: { allow_fallbacks: false, order: ["openai"] },
        reasoning: { effort: "high", summary: "auto", mode: "pro" },
        route: "fallback",
        safety_identifier: "end-user-42",
        service_tier: "fast",
        session_id: "body-session",
        text: { format: { type: "json_schema", name: "out", schema: { type: "object" }, strict: true, description: "d" }, verbosity: "low" },
        debug: { echo_upstream_body: true },
        trace: { trace_id: "t1", custom: 1 },
        truncation: "auto",
        user: "user-1",
        stop_server_tools_when: [{ type: "max_cost", max_cost_in_dollars: 0.5 }],
      },
      new Headers({ "x-session-id": "header-session" }),
    );
    expect(request).toMatchObject({
      format: "responses",
      model: "openai/gpt-5",
      models: ["anthropic/claude-sonnet-4"],
      stream: true,
      maxTokens: 500,
      maxToolCalls: 5,
      sampling: { temperature: 0.3, topP: 0.9, topK: 40, frequencyPenalty: 0.1, presencePenalty: -0.2, topLogprobs: 3 },
      parallelToolCalls: false,
      toolChoice: { type: "tool", name: "f" },
      tools: [
        { kind: "function", name: "f", description: "d", parameters: { type: "object" }, strict: true, async: true, cache: { type: "ephemeral", ttl: "1h" } },
        { kind: "server", type: "service:web_search", parameters: { max_results: 3 } },
        { kind: "server", type: "service:datetime" },
      ],
      modalities: ["text"],
      metadata: { team: "a" },
      plugins: [{ id: "response-healing" }],
      cache: { control: { type: "ephemeral" }, promptCacheKey: "pck", options: { mode: "explicit", ttl: "1h" } },
      provider: { allow_fallbacks: false, order: ["openai"], sort: { partition: "model" } },
      reasoning: { effort: "high", summary: "auto", extra: { mode: "pro" } },
      serviceTier: "priority",
      sessionId: "body-session",
      output: { format: { type: "json_schema", name: "out", schema: { type: "object" }, strict: true, description: "d" }, verbosity: "low" },
      debug: { echoUpstreamBody: true },
      trace: { trace_id: "t1", custom: 1 },
      user: "user-1",
      stopWhen: [{ type: "max_cost", max_cost_in_dollars: 0.5 }],
      // `prompt` is not forwarded: it names the gateway's own template, rendered into the body before decode.
      passthrough: { include: ["reasoning.encrypted_content"], image_config: { size: "1024x1024" }, truncation: "auto" },
    });
    expect(request.warnings).toEqual([]);
  });

  test("safety_identifier is SHA-256 hashed and never kept raw, not even in original", () => {
    const request = parse({ ...base, safety_identifier: "end-user-42" });
    const digest = createHash("sha256").update("end-user-42").digest("hex");
    expect(request.safetyIdentifier).toBe(digest);
    expect(request.original.safety_identifier).toBe(digest);
    expect(JSON.stringify(request)).not.toContain("end-user-42");
  });

  test("session id: the header is used when the body has none; the body wins otherwise", () => {
    expect(parse(base, new Headers({ "x-session-id": "h" })).sessionId).toBe("h");
    expect(parse({ ...base, session_id: "b" }, new Headers({ "x-session-id": "h" })).sessionId).toBe("b");
    expect(parse(base).sessionId).toBeUndefined();
  });

  test("the x-session-id header obeys the same 256-character limit", () => {
    expect(parse(base, new Headers({ "x-session-id": "h".repeat(256) })).sessionId).toHaveLength(256);
    expect(() => parse(base, new Headers({ "x-session-id": "h".repeat(257) }))).toThrow(/x-session-id/);
  });

  test("service_tier: fast is priority, others pass, null is unset", () => {
    expect(parse({ ...base, service_tier: "fast" }).serviceTier).toBe("priority");
    expect(parse({ ...base, service_tier: "ultrafast" }).serviceTier).toBe("ultrafast");
    expect(parse({ ...base, service_tier: null }).serviceTier).toBeUndefined();
  });

  test("route folds into provider.sort.partition (fallback→model, sort→none) keeping an existing sort", () => {
    expect(parse({ ...base, route: "sort" }).provider).toEqual({ sort: { partition: "none" } });
    expect(parse({ ...base, route: "sort", provider: { sort: "price" } }).provider).toEqual({ sort: { by: "price", partition: "none" } });
    expect(parse({ ...base, route: "fallback", provider: { sort: { by: "latency", partition: "none" } } }).provider).toEqual({ sort: { by: "latency", partition: "none" } });
  });

  test("text.format text / json_object; verbosity alone", () => {
    expect(parse({ ...base, text: { format: { type: "text" } } }).output).toEqual({ format: { type: "text" } });
    expect(parse({ ...base, text: { format: { type: "json_object" } } }).output).toEqual({ format: { type: "json_object" } });
    expect(parse({ ...base, text: { verbosity: "high" } }).output).toEqual({ verbosity: "high" });
    expect(parse({ ...base, text: {} }).output).toBeUndefined();
  });

  test("tool_choice forms", () => {
    expect(parse({ ...base, tool_choice: "auto" }).toolChoice).toEqual({ type: "auto" });
    expect(parse({ ...base, tool_choice: "none" }).toolChoice).toEqual({ type: "none" });
    expect(parse({ ...base, tool_choice: "required" }).toolChoice).toEqual({ type: "required" });
    const allowed = parse({ ...base, tool_choice: { type: "allowed_tools", mode: "required", tools: [] } });
    expect(allowed.toolChoice).toEqual({ type: "required" });
    expect(allowed.warnings.map((w) => w.field)).toEqual(["tool_choice"]);
    const hosted = parse({ ...base, tool_choice: { type: "web_search_preview" } });
    expect(hosted.toolChoice).toEqual({ type: "auto" });
    expect(hosted.warnings).toHaveLength(1);
  });

  test("hosted tools of other services are dropped with a warning; OpenAI's web search is the gateway's", () => {
    const request = parse({ ...base, tools: [{ type: "file_search", vector_store_ids: ["vs_1"] }, { type: "web_search_preview" }, { type: "function", name: "f" }] });
    expect(request.tools).toEqual([{ kind: "server", type: "service:web_search", spelling: "web_search_preview" }, { kind: "function", name: "f" }]);
    expect(request.warnings).toEqual([{ code: "unsupported_tool", field: "tools[0]", message: expect.any(String) }]);
  });

  test("OpenAI's web_search fields become the search's parameters; include logprobs asks for logprobs", () => {
    const tool = { type: "web_search", search_context_size: "low", user_location: { type: "approximate", city: "Paris", region: null }, filters: { allowed_domains: ["example.com"], blocked_domains: null } };
    const request = parse({ ...base, tools: [tool], tool_choice: { type: "web_search" }, include: ["web_search_call.action.sources", "message.output_text.logprobs"] });
    expect(request.tools).toEqual([
      { kind: "server", type: "service:web_search", spelling: "web_search", parameters: { search_context_size: "low", user_location: { type: "approximate", city: "Paris" }, allowed_domains: ["example.com"] } },
    ]);
    expect(request.toolChoice).toEqual({ type: "tool", name: "service:web_search" });
    expect(request.sampling.logprobs).toBe(true);
    expect(rejection({ ...base, include: ["message.output_text.logprob"] }).message).toContain('include[0]: "message.output_text.logprob" is not an include value');
  });

  test("the peer's openrouter:<tool> is service:<tool>, in tools, tool_choice, replayed items and stop conditions", () => {
    const request = parse({
      ...base,
      input: [{ type: "openrouter:datetime", id: "st_1", call_id: "c1", status: "completed", arguments: "{}", datetime: "2025-01-01T00:00:00.000Z", timezone: "UTC" }],
      tools: [{ type: "openrouter:datetime", parameters: { timezone: "UTC" } }],
      tool_choice: { type: "openrouter:datetime" },
      stop_server_tools_when: [{ type: "has_tool_call", tool_name: "openrouter:datetime" }],
    });
    expect(request.tools).toEqual([{ kind: "server", type: "service:datetime", spelling: "openrouter:datetime", parameters: { timezone: "UTC" } }]);
    expect(request.toolChoice).toEqual({ type: "tool", name: "service:datetime" });
    expect(request.stopWhen).toEqual([{ type: "has_tool_call", tool_name: "service:datetime" }]);
    expect(request.messages[0]!.parts[0]).toMatchObject({ type: "server-tool", name: "service:datetime", result: { datetime: "2025-01-01T00:00:00.000Z", timezone: "UTC" } });
  });

  test("reasoning enabled:false and max_tokens", () => {
    expect(parse({ ...base, reasoning: { enabled: false, max_tokens: 0 } }).reasoning).toEqual({ enabled: false, maxTokens: 0 });
    expect(parse({ ...base, reasoning: null }).reasoning).toBeUndefined();
  });

  test("unknown fields become warnings, not errors; background:false is accepted", () => {
    const request = parse({ ...base, background: false, brand_new: 1 });
    expect(request.warnings.map((w) => [w.code, w.field])).toEqual([["unknown_field", "brand_new"]]);
  });

  test("background:true is a 400 saying no response is stored to be fetched later", () => {
    expect(() => parse({ ...base, background: true })).toThrow(/background: true is not supported: the gateway stores no responses/);
  });

  test("defaults: not streaming, no models, no plugins, original is the body", () => {
    const body = { ...base };
    const request = parse(body);
    expect(request).toMatchObject({ stream: false, models: [], plugins: [], tools: [], sampling: {} });
    expect(request.original).toBe(body);
  });
});
