/**
 * POST /responses, non-streaming, end to end: the official `openai` client → gateway on a loopback port → (a) the
 * `openai` adapter and the chat-completions simulator server, (b) the `openai-responses` adapter and a fake
 * Responses upstream. Both what the client sees and what the upstream received are asserted: the result table,
 * request translation, usage and cost, incomplete results, routing metadata and upstream failures.
 * Tools and reasoning round trips: responses-tools.test.ts. Streaming: responses-streaming.test.ts and
 * responses-stream-client.test.ts. The 400 rules: responses-limits.test.ts.
 */
import { describe, expect, test } from "bun:test";
import OpenAI from "openai";
import {
  FAKE_TEXT,
  CHAT_MODEL as CHAT,
  NATIVE_MODEL as NATIVE,
  expectServiceMetadata,
  useResponsesRig,
} from "../support/fake-responses-upstream.ts";

type Json = Record<string, any>;

const rig = useResponsesRig();

const simLast = (): Json => rig.simLast();
/** Same values, float noise aside. */
const close = (actual: number, expected: number) => expect(actual).toBeCloseTo(expected, 12);

/** Every field of the spec's "Responses result" table that is always present. */
const RESULT_FIELDS = [
  "id", "object", "created_at", "completed_at", "status", "model", "output", "error", "incomplete_details",
  "instructions", "max_output_tokens", "metadata", "temperature", "top_p", "frequency_penalty", "presence_penalty",
  "parallel_tool_calls", "tool_choice", "tools", "service_tier", "prompt", "prompt_cache_options", "reasoning", "text", "usage",
];

function expectUsageShape(usage: Json): void {
  expect(Object.keys(usage).sort()).toEqual(
    ["cost", "cost_details", "input_tokens", "input_tokens_details", "output_tokens", "output_tokens_details", "total_tokens"].sort(),
  );
  expect(usage.total_tokens).toBe(usage.input_tokens + usage.output_tokens);
  expect(Number.isInteger(usage.input_tokens_details.cached_tokens)).toBe(true);
  expect(Number.isInteger(usage.output_tokens_details.reasoning_tokens)).toBe(true);
  expect(Object.keys(usage.cost_details).sort()).toEqual(["upstream_inference_cost", "upstream_inference_input_cost", "upstream_inference_output_cost"]);
  close(usage.cost, usage.cost_details.upstream_inference_input_cost + usage.cost_details.upstream_inference_output_cost);
}

describe("result shape (both adapters)", () => {
  for (const [label, model, input] of [
    ["openai adapter", CHAT, "Hello [sim tokens=4]"],
    ["openai-responses adapter", NATIVE, "Hello [fake text]"],
  ] as const) {
    test(`${label}: every result-table field is present; echoes are null when not sent`, async () => {
      const { data, response } = await rig.client.responses.create({ model, input }).withResponse();
      const result = data as unknown as Json;
      for (const field of RESULT_FIELDS) expect(result).toHaveProperty(field);
      expect(result.object).toBe("response");
      expect(result.id).toBe(response.headers.get("x-generation-id")!);
      expect(result.status).toBe("completed");
      expect(result.model).toBe(model);
      expect(Number.isInteger(result.created_at)).toBe(true);
      expect(Number.isInteger(result.completed_at)).toBe(true);
      expect(result.completed_at).toBeGreaterThanOrEqual(result.created_at);
      expect(result.error).toBeNull();
      expect(result.incomplete_details).toBeNull();
      // `text` is echoed as OpenAI does when the request sent none (the OpenRouter SDK requires an object).
      expect(result.text).toEqual({ format: { type: "text" } });
      for (const echo of ["instructions", "max_output_tokens", "metadata", "temperature", "top_p", "frequency_penalty", "presence_penalty", "prompt", "prompt_cache_options", "reasoning"]) {
        expect(result[echo]).toBeNull();
      }
      expect(result.parallel_tool_calls).toBe(true);
      expect(result.tool_choice).toBe("auto");
      expect(result.tools).toEqual([]);
      expect(result).not.toHaveProperty("service_metadata");
      const message = result.output.at(-1);
      expect(message).toMatchObject({ type: "message", role: "assistant", status: "completed" });
      expect(typeof message.id).toBe("string");
      expect(message.content).toEqual([{ type: "output_text", text: data.output_text, annotations: [] }]);
      if (model === NATIVE) expect(data.output_text).toBe(FAKE_TEXT);
      expectUsageShape(result.usage);
    });
  }

  test("openai adapter: request values are echoed and reach the chat upstream translated", async () => {
    const tools: OpenAI.Responses.FunctionTool[] = [
      { type: "function", name: "get_weather", description: "Weather", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] }, strict: false },
    ];
    const params = {
      model: CHAT,
      instructions: "Be brief.",
      input: [
        { role: "developer" as const, content: "Answer in English." },
        { role: "user" as const, content: "Say something [sim tokens=3]" },
      ],
      max_output_tokens: 40,
      temperature: 0.2,
      top_p: 0.9,
      frequency_penalty: 0.1,
      presence_penalty: 0.3,
      parallel_tool_calls: false,
      tool_choice: "none" as const,
      tools,
      metadata: { team: "qa" },
      service_tier: "flex" as const,
      reasoning: { effort: "low" as const },
      text: { format: { type: "text" as const }, verbosity: "low" as const },
      user: "end-user-7",
    };
    const result = (await rig.client.responses.create(params)) as unknown as Json;
    expect(result).toMatchObject({
      instructions: "Be brief.",
      max_output_tokens: 40,
      temperature: 0.2,
      top_p: 0.9,
      frequency_penalty: 0.1,
      presence_penalty: 0.3,
      parallel_tool_calls: false,
      tool_choice: "none",
      tools,
      metadata: { team: "qa" },
      service_tier: "flex",
      reasoning: { effort: "low" },
      text: { format: { type: "text" }, verbosity: "low" },
    });
    const seen = rig.sim.requests.at(-1)!;
    expect(seen.path).toBe("/v1/chat/completions");
    expect(seen.headers.authorization).toBe("Bearer sim-secret");
    const body = seen.body as Json;
    expect(body.model).toBe("model-a");
    // instructions first, then the developer message, as one system message at the head of the conversation.
    expect(body.messages[0]).toEqual({ role: "system", content: "Be brief.\n\nAnswer in English." });
    expect(body.messages[1]).toEqual({ role: "user", content: "Say something [sim tokens=3]" });
    expect(body.max_completion_tokens).toBe(40);
    expect(body).not.toHaveProperty("max_tokens");
    expect(body).toMatchObject({
      temperature: 0.2,
      top_p: 0.9,
      frequency_penalty: 0.1,
      presence_penalty: 0.3,
      parallel_tool_calls: false,
      tool_choice: "none",
      metadata: { team: "qa" },
      service_tier: "flex",
      reasoning_effort: "low",
      verbosity: "low",
      user: "end-user-7",
    });
    expect(body.tools).toEqual([{ type: "function", function: { name: "get_weather", description: "Weather", parameters: tools[0]!.parameters, strict: false } }]);
  });

  test("openai adapter: top_logprobs turns logprobs on (chat completions rejects top_logprobs without it)", async () => {
    await rig.client.responses.create({ model: CHAT, input: "hi", top_logprobs: 3 });
    expect(simLast()).toMatchObject({ logprobs: true, top_logprobs: 3 });
    await rig.client.responses.create({ model: CHAT, input: "hi" });
    expect(simLast()).not.toHaveProperty("logprobs");
  });

  test("openai adapter: text.format json_schema becomes response_format", async () => {
    const schema = { type: "object", properties: { answer: { type: "string" } }, required: ["answer"], additionalProperties: false };
    await rig.client.responses.create({ model: CHAT, input: "hi", text: { format: { type: "json_schema", name: "answer", schema, strict: true } } });
    expect(simLast().response_format).toEqual({ type: "json_schema", json_schema: { name: "answer", schema, strict: true } });
    await rig.client.responses.create({ model: CHAT, input: "hi", text: { format: { type: "json_object" } } });
    expect(simLast().response_format).toEqual({ type: "json_object" });
  });

  test("openai-responses adapter: request values reach the Responses upstream as they are", async () => {
    const params = {
      model: NATIVE,
      instructions: "Be brief.",
      input: "Hi [fake text]",
      max_output_tokens: 64,
      temperature: 0.5,
      top_p: 0.8,
      parallel_tool_calls: false,
      tool_choice: { type: "function" as const, name: "lookup" },
      tools: [{ type: "function" as const, name: "lookup", parameters: { type: "object", properties: {} }, strict: true }],
      metadata: { team: "qa" },
      service_tier: "fast" as const,
      reasoning: { effort: "high" as const, summary: "auto" as const },
      text: { format: { type: "json_schema" as const, name: "answer", schema: { type: "object", properties: { a: { type: "string" } } }, strict: true }, verbosity: "high" as const },
      prompt_cache_key: "cache-1",
      include: ["reasoning.encrypted_content" as const],
      truncation: "auto" as const,
      user: "end-user-7",
    };
    const result = (await rig.client.responses.create(params)) as unknown as Json;
    // `fast` is an alias of `priority`: asked for, served (the fake reports the tier it served) and reported.
    expect(result.service_tier).toBe("priority");
    expect(result).toMatchObject({ instructions: "Be brief.", max_output_tokens: 64, tool_choice: params.tool_choice, tools: params.tools, text: params.text });
    const seen = rig.fake.last();
    expect(seen.method).toBe("POST");
    expect(seen.path).toBe("/v1/responses");
    expect(seen.headers.authorization).toBe("Bearer fake-secret");
    expect(seen.headers["openai-organization"]).toBe("org-1");
    expect(seen.body).toEqual({
      model: "gpt-5-2025-08-07",
      input: [{ role: "user", content: [{ type: "input_text", text: "Hi [fake text]" }] }],
      store: false,
      instructions: "Be brief.",
      tools: params.tools,
      tool_choice: { type: "function", name: "lookup" },
      parallel_tool_calls: false,
      max_output_tokens: 64,
      temperature: 0.5,
      top_p: 0.8,
      text: params.text,
      reasoning: { effort: "high", summary: "auto" },
      include: ["reasoning.encrypted_content"],
      metadata: { team: "qa" },
      user: "end-user-7",
      service_tier: "priority",
      prompt_cache_key: "cache-1",
      truncation: "auto",
    });
  });

  test("openai-responses adapter: `prompt` names the gateway's own template (a preset), never one stored at OpenAI: an unknown id is 404 and nothing is sent", async () => {
    // Templates rendered for every upstream: test/integration/prompt-templates.test.ts.
    const before = rig.fake.requests.length;
    const error = await rig.client.responses.create({ model: NATIVE, prompt: { id: "pmpt_68a1b2c3", variables: { city: "Paris" } } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect(rig.fake.requests.length).toBe(before);
  });

  test("openai-responses adapter: usage with cached and reasoning tokens, priced with the cache-read price", async () => {
    const result = (await rig.client.responses.create({ model: NATIVE, input: "Why? [fake reasoning]" })) as unknown as Json;
    expect(result.usage.input_tokens).toBe(328);
    expect(result.usage.input_tokens_details).toEqual({ cached_tokens: 256 });
    expect(result.usage.output_tokens).toBe(87);
    expect(result.usage.output_tokens_details).toEqual({ reasoning_tokens: 64 });
    expect(result.usage.total_tokens).toBe(415);
    // (328 - 256) × 1e-6 + 256 × 1e-7 input, 87 × 2e-6 output.
    close(result.usage.cost_details.upstream_inference_input_cost, 0.0000976);
    close(result.usage.cost_details.upstream_inference_output_cost, 0.000174);
    close(result.usage.cost, 0.0002716);
    expect(result.usage.cost_details.upstream_inference_cost).toBeNull();
  });

  test("openai adapter: reasoning tokens from the chat upstream are counted and priced as output", async () => {
    const result = (await rig.client.responses.create({ model: CHAT, input: "Think [sim tokens=4 reasoning=3]" })) as unknown as Json;
    expect(result.usage.output_tokens_details.reasoning_tokens).toBe(3);
    expect(result.usage.output_tokens).toBe(7);
    expect(result.usage.input_tokens_details.cached_tokens).toBe(0);
    close(result.usage.cost, result.usage.input_tokens * 0.000001 + 7 * 0.000002);
    expect(result.output.map((item: Json) => item.type)).toEqual(["reasoning", "message"]);
    expect(result.output[0].content).toEqual([{ type: "reasoning_text", text: expect.any(String) }]);
  });
});

describe("incomplete", () => {
  test("openai adapter: max_output_tokens is max_completion_tokens upstream; a cut answer is incomplete", async () => {
    const result = (await rig.client.responses.create({ model: CHAT, input: "Long story [sim tokens=30]", max_output_tokens: 5 })) as unknown as Json;
    expect(simLast().max_completion_tokens).toBe(5);
    expect(result.status).toBe("incomplete");
    expect(result.incomplete_details).toEqual({ reason: "max_output_tokens" });
    expect(result.output[0].status).toBe("incomplete");
    expect(result.usage.output_tokens).toBe(5);
    expect(result.max_output_tokens).toBe(5);
  });

  test("openai-responses adapter: an incomplete upstream result stays incomplete", async () => {
    const result = (await rig.client.responses.create({ model: NATIVE, input: "Long story [fake incomplete]", max_output_tokens: 16 })) as unknown as Json;
    expect(rig.fake.last().body.max_output_tokens).toBe(16);
    expect(result.status).toBe("incomplete");
    expect(result.incomplete_details).toEqual({ reason: "max_output_tokens" });
    expect(result.output).toHaveLength(1);
    expect(result.output[0]).toMatchObject({ type: "message", status: "incomplete", content: [{ type: "output_text", text: "Once upon a" }] });
    expect(result.usage.output_tokens).toBe(16);
  });
});

describe("service_metadata", () => {
  for (const [header, value] of [["X-Service-Metadata", "enabled"], ["X-Service-Experimental-Metadata", "enabled"]] as const) {
    test(`${header}: ${value} adds service_metadata to the result (both adapters)`, async () => {
      for (const [model, provider] of [[CHAT, "acme"], [NATIVE, "native"]] as const) {
        const result = (await rig.client.responses.create({ model, input: "hi" }, { headers: { [header]: value } })) as unknown as Json;
        expectServiceMetadata(result.service_metadata, model, provider);
      }
    });
  }

  test("absent without the header and with `disabled`", async () => {
    const plain = (await rig.client.responses.create({ model: CHAT, input: "hi" })) as unknown as Json;
    expect(plain).not.toHaveProperty("service_metadata");
    const disabled = (await rig.client.responses.create({ model: CHAT, input: "hi" }, { headers: { "X-Service-Metadata": "disabled" } })) as unknown as Json;
    expect(disabled).not.toHaveProperty("service_metadata");
  });

  test("warnings about fields the upstream cannot honour are listed in service_metadata", async () => {
    const result = (await rig.client.responses.create(
      // frequency_penalty is a gateway field (not in the openai package's Responses types).
      { model: NATIVE, input: "hi", frequency_penalty: 0.5 } as OpenAI.Responses.ResponseCreateParamsNonStreaming,
      { headers: { "X-Service-Metadata": "enabled" } },
    )) as unknown as Json;
    expect(rig.fake.last().body).not.toHaveProperty("frequency_penalty");
    expect(result.frequency_penalty).toBe(0.5);
    expect(result.service_metadata.warnings).toContainEqual(expect.objectContaining({ code: "unsupported_field", field: "frequency_penalty" }));
  });
});

describe("upstream failures (non-streaming)", () => {
  const envelope = async (res: Response) => (await res.json()) as { error: { code: number; message: string; metadata: Json }; service_metadata: unknown; user_id: unknown };

  test("openai adapter: an upstream 529 is a 529 envelope with error_type", async () => {
    const res = await rig.gw.request("/responses", { method: "POST", json: { model: CHAT, input: "[sim status=529]" } });
    expect(res.status).toBe(529);
    const body = await envelope(res);
    expect(body.error.code).toBe(529);
    expect(body.error.metadata.error_type).toBe("provider_overloaded");
    expect(body.service_metadata).toBeNull();
    expect(body.user_id).toBeNull();
  });

  test("with X-Service-Metadata the error envelope carries the routing metadata of the failed attempt", async () => {
    const res = await rig.gw.request("/responses", { method: "POST", headers: { "X-Service-Metadata": "enabled" }, json: { model: NATIVE, input: "[fake error status=429]" } });
    expect(res.status).toBe(429);
    const body = await envelope(res);
    expect(body.service_metadata).toMatchObject({ attempt: 1, requested: NATIVE, endpoints: { available: [{ model: NATIVE, provider: "native", selected: false }], total: 1 } });
  });

  test("openai-responses adapter: an upstream 429 JSON error is a 429 envelope, Retry-After kept", async () => {
    const res = await rig.gw.request("/responses", { method: "POST", json: { model: NATIVE, input: "[fake error status=429]" } });
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("2");
    const body = await envelope(res);
    expect(body.error.metadata.error_type).toBe("rate_limit_exceeded");
  });

  test("openai-responses adapter: an upstream 400 is the client's 400 with the upstream's reason", async () => {
    const res = await rig.gw.request("/responses", { method: "POST", json: { model: NATIVE, input: "[fake error status=400]" } });
    expect(res.status).toBe(400);
    const body = await envelope(res);
    expect(body.error.metadata.error_type).toBe("invalid_request");
    expect(body.error.message).toContain("Invalid value for 'input'");
  });

  test("openai-responses adapter: a 200 result with status failed becomes an error status, never a success", async () => {
    const res = await rig.gw.request("/responses", { method: "POST", json: { model: NATIVE, input: "[fake failed]" } });
    expect(res.status).toBe(502);
    const body = await envelope(res);
    expect(body.error.metadata.error_type).toBe("provider_unavailable");
  });

  test("the official client raises APIError with the status for an upstream failure", async () => {
    const failure = await rig.client.responses.create({ model: CHAT, input: "[sim status=429]" }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect((failure as InstanceType<typeof OpenAI.APIError>).status).toBe(429);
  });
});
