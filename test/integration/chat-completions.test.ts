/** Chat completions end to end: the official `openai` client → gateway → simulator / recording upstream. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { startSimulatorServer } from "../../providers/simulator/server.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";

type Recorded = { path: string; headers: Record<string, string>; body: Record<string, unknown> };

let gw: TestGateway;
let upstream: Awaited<ReturnType<typeof startSimulatorServer>>;
let client: OpenAI;

beforeAll(async () => {
  upstream = await startSimulatorServer({ port: 0, hostname: "127.0.0.1", record: true });
  gw = await startTestGateway({
    file: {
      simulator: true,
      providers: [
        {
          id: "acme",
          adapter: "openai",
          base_url: upstream.url,
          api_key: "upstream-secret",
          models: [{ id: "acme/model-a", upstream_model: "model-a", pricing: { prompt: "0.000001", completion: 0.000002 }, context_length: 32768 }],
        },
      ],
    },
  });
  client = new OpenAI({ baseURL: gw.baseUrl, apiKey: gw.inferenceKey, maxRetries: 0 });
});

afterAll(async () => {
  await gw.close();
  upstream.stop();
});

const lastUpstream = (): Recorded => upstream.requests.at(-1) as Recorded;

describe("non-streaming", () => {
  test("built-in simulator answers with usage, cost and provider", async () => {
    const { data, response } = await client.chat.completions
      .create({ model: "simulator/small", messages: [{ role: "user", content: "Hello there" }] })
      .withResponse();
    expect(data.object).toBe("chat.completion");
    expect(data.choices[0]!.message.role).toBe("assistant");
    expect(data.choices[0]!.message.content!.length).toBeGreaterThan(0);
    expect(data.choices[0]!.finish_reason).toBe("stop");
    const usage = data.usage as OpenAI.CompletionUsage & { cost: number };
    expect(usage.prompt_tokens).toBeGreaterThan(0);
    expect(usage.completion_tokens).toBeGreaterThan(0);
    expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);
    expect(usage.cost).toBeCloseTo(usage.prompt_tokens * 0.0000001 + usage.completion_tokens * 0.0000004, 12);
    expect((data as unknown as { provider: string }).provider).toBe("simulator");
    expect(response.headers.get("x-generation-id")).toBe(data.id);
  });

  test("openai adapter: upstream receives the translated body and the provider key", async () => {
    const data = await client.chat.completions.create({
      model: "acme/model-a",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Say hi" },
      ],
      max_tokens: 7,
      temperature: 0.3,
    });
    const seen = lastUpstream();
    expect(seen.path).toBe("/v1/chat/completions");
    expect(seen.headers.authorization).toBe("Bearer upstream-secret");
    expect(seen.body.model).toBe("model-a");
    expect(seen.body.max_completion_tokens).toBe(7);
    expect(seen.body.temperature).toBe(0.3);
    const messages = seen.body.messages as Array<{ role: string; content: unknown }>;
    expect(messages[0]).toEqual({ role: "system", content: "Be brief." });
    expect(messages[1]!.role).toBe("user");
    expect((data as unknown as { provider: string }).provider).toBe("acme");
    const usage = data.usage as OpenAI.CompletionUsage & { cost: number };
    expect(usage.cost).toBeCloseTo(usage.prompt_tokens * 0.000001 + usage.completion_tokens * 0.000002, 12);
    expect(usage.completion_tokens).toBeLessThanOrEqual(7);
  });

  test("tool calls round-trip with ids and arguments intact", async () => {
    const tools: OpenAI.ChatCompletionTool[] = [
      {
        type: "function",
        function: { name: "get_weather", description: "Weather", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } },
      },
    ];
    const first = await client.chat.completions.create({ model: "acme/model-a", messages: [{ role: "user", content: "Weather in Paris?" }], tools });
    const call = first.choices[0]!.message.tool_calls![0]! as OpenAI.ChatCompletionMessageFunctionToolCall;
    expect(first.choices[0]!.finish_reason).toBe("tool_calls");
    expect(call.function.name).toBe("get_weather");
    expect(JSON.parse(call.function.arguments)).toEqual({ city: "simulated" });
    expect((lastUpstream().body.tools as unknown[]).length).toBe(1);

    const second = await client.chat.completions.create({
      model: "acme/model-a",
      tools,
      messages: [
        { role: "user", content: "Weather in Paris?" },
        { role: "assistant", content: null, tool_calls: [call] },
        { role: "tool", tool_call_id: call.id, content: "sunny, 21C" },
      ],
    });
    const sent = lastUpstream().body.messages as Array<Record<string, unknown>>;
    expect(sent[1]!.tool_calls).toEqual([{ id: call.id, type: "function", function: { name: "get_weather", arguments: call.function.arguments } }]);
    expect(sent[2]).toMatchObject({ role: "tool", tool_call_id: call.id });
    expect(second.choices[0]!.message.content).toContain("sunny, 21C");
  });
});

describe("gateway-only fields", () => {
  test("the deprecated route is routing input, never forwarded upstream", async () => {
    const { data } = await client.chat.completions
      .create({ model: "acme/model-a", messages: [{ role: "user", content: "hi" }], route: "fallback", provider: { sort: "price" } } as OpenAI.ChatCompletionCreateParamsNonStreaming)
      .withResponse();
    expect(data.choices[0]!.message.content).toBeTruthy();
    const sent = lastUpstream().body;
    expect(sent).not.toHaveProperty("route");
    expect(sent).not.toHaveProperty("provider");
  });
});

describe("streaming", () => {
  test("chunks reassemble the text and end with a usage chunk when asked", async () => {
    const stream = await client.chat.completions.create({
      model: "acme/model-a",
      messages: [{ role: "user", content: "Stream please [sim tokens=12]" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = "";
    let finish: string | null = null;
    let usage: (OpenAI.CompletionUsage & { cost?: number }) | undefined;
    let chunks = 0;
    for await (const chunk of stream) {
      chunks++;
      text += chunk.choices[0]?.delta.content ?? "";
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    expect(chunks).toBeGreaterThan(3);
    expect(finish).toBe("stop");
    expect(usage?.completion_tokens).toBe(12);
    expect(text.split(/\s+/).filter(Boolean).length).toBe(12);
    expect(usage?.cost).toBeGreaterThan(0);
    expect(lastUpstream().body.stream_options).toEqual({ include_usage: true });
  });

  test("without include_usage the usage rides on the finish chunk (no usage chunk), and the raw stream ends with [DONE]", async () => {
    const res = await gw.request("/chat/completions", { method: "POST", json: { model: "simulator/small", stream: true, messages: [{ role: "user", content: "hi" }] } });
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    expect(res.headers.get("x-generation-id")).toMatch(/^gen-/);
    const raw = await res.text();
    const frames = raw.split("\n\n").filter((f) => f.startsWith("data: "));
    expect(frames.at(-1)).toBe("data: [DONE]");
    const chunks = frames.slice(0, -1).map((f) => JSON.parse(f.slice(6)) as { usage?: { prompt_tokens: number }; id: string; choices: Array<{ finish_reason: string | null }> });
    // The final usage always comes, on the chunk carrying the finish_reason, never in a chunk of its own.
    expect(chunks.every((c) => c.choices.length === 1)).toBe(true);
    expect(chunks.filter((c) => c.usage !== undefined)).toHaveLength(1);
    expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe("stop");
    expect(chunks.at(-1)!.usage!.prompt_tokens).toBeGreaterThan(0);
    expect(chunks[0]!.id).toBe(res.headers.get("x-generation-id")!);
  });

  test("streamed tool call arguments are never lost", async () => {
    const stream = await client.chat.completions.create({
      model: "acme/model-a",
      messages: [{ role: "user", content: "use the tool" }],
      tools: [{ type: "function", function: { name: "lookup", parameters: { type: "object", properties: { q: { type: "string" }, n: { type: "integer" } }, required: ["q", "n"] } } }],
      stream: true,
    });
    let args = "";
    let name = "";
    for await (const chunk of stream) {
      for (const call of chunk.choices[0]?.delta.tool_calls ?? []) {
        name ||= call.function?.name ?? "";
        args += call.function?.arguments ?? "";
      }
    }
    expect(name).toBe("lookup");
    expect(JSON.parse(args)).toEqual({ q: "simulated", n: 1 });
  });

  test("client disconnect aborts the upstream request", async () => {
    const controller = new AbortController();
    const res = await gw.request("/chat/completions", {
      method: "POST",
      signal: controller.signal,
      json: { model: "acme/model-a", stream: true, messages: [{ role: "user", content: "slow [sim tokens=400 delay=20]" }] },
    });
    const reader = res.body!.getReader();
    await reader.read();
    controller.abort();
    await Bun.sleep(300);
    expect(upstream.stats.cancelled).toBeGreaterThanOrEqual(1);
  });
});

describe("upstream failures", () => {
  test("an upstream 529 (overloaded) becomes a 529 envelope with error_type", async () => {
    const res = await gw.request("/chat/completions", { method: "POST", json: { model: "acme/model-a", messages: [{ role: "user", content: "[sim status=529]" }] } });
    expect(res.status).toBe(529);
    const body = (await res.json()) as { error: { code: number; metadata: { error_type: string } }; service_metadata: unknown; user_id: unknown };
    expect(body.error.code).toBe(529);
    expect(body.error.metadata.error_type).toBe("provider_overloaded");
    expect(body.service_metadata).toBeNull();
    expect(body.user_id).toBeNull();
  });

  test("an upstream 429 keeps Retry-After semantics as rate_limit_exceeded", async () => {
    const res = await gw.request("/chat/completions", { method: "POST", json: { model: "acme/model-a", messages: [{ role: "user", content: "[sim status=429]" }] } });
    expect(res.status).toBe(429);
    const body = (await res.json()) as { error: { metadata: { error_type: string } } };
    expect(body.error.metadata.error_type).toBe("rate_limit_exceeded");
  });

  test("an unknown model is a 400 naming it", async () => {
    const res = await gw.request("/chat/completions", { method: "POST", json: { model: "nope/none", messages: [{ role: "user", content: "x" }] } });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { message: string } };
    expect(body.error.message).toContain("nope/none");
  });
});

describe("service metadata", () => {
  test("present only when opted in", async () => {
    const body = { model: "acme/model-a", messages: [{ role: "user", content: "x" }] };
    const plain = (await (await gw.request("/chat/completions", { method: "POST", json: body })).json()) as Record<string, unknown>;
    expect(plain.service_metadata).toBeUndefined();
    const res = await gw.request("/chat/completions", { method: "POST", json: body, headers: { "X-Service-Metadata": "enabled" } });
    const meta = ((await res.json()) as { service_metadata: Record<string, unknown> }).service_metadata;
    expect(meta).toMatchObject({ attempt: 1, strategy: "direct", requested: "acme/model-a", is_byok: false });
    expect(meta.endpoints).toEqual({ available: [{ model: "acme/model-a", provider: "acme", selected: true }], total: 1 });
    const legacy = await gw.request("/chat/completions", { method: "POST", json: body, headers: { "X-Service-Experimental-Metadata": "enabled" } });
    expect(((await legacy.json()) as Record<string, unknown>).service_metadata).toBeDefined();
  });
});
