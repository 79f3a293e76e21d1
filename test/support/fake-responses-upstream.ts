/**
 * A loopback upstream that speaks OpenAI's Responses API (`POST /v1/responses`), for tests of the `openai-responses`
 * adapter through the whole gateway. It records every request (method, path, headers, parsed body, raw text) and
 * replays fixtures shaped like real OpenAI wire traffic (store: false, encrypted reasoning, `event:` + `data:` SSE
 * frames with `sequence_number`, `obfuscation` fields, and no `[DONE]`, as OpenAI sends it).
 *
 * The reply is picked by a marker `[fake SCENARIO]` anywhere in the request's `input` (like the simulator's `[sim …]`
 * directive), and by `stream`. When the last input item is a `function_call_output`, the upstream answers with text
 * quoting that output (the second turn of a tool round trip), whatever the marker says.
 *
 * Scenarios:
 * - `text` (default): one message;
 * - `reasoning`: a reasoning item (summary + encrypted_content), then a message;
 * - `tool`: one function_call; `tools2`: a message, then two parallel function calls;
 * - `cited`: text with a url_citation annotation; `refusal`: a refusal content part;
 * - `incomplete`: a message cut by max_output_tokens;
 * - `error`: a non-2xx JSON error (`[fake error status=400]`; 429 by default, with Retry-After);
 * - `failed`: streamed, two deltas then `response.failed`; non-streaming, a 200 result with status failed;
 * - `cut`: two deltas, then the body ends cleanly without a terminal event;
 * - `reset`: two deltas, then the body breaks (a dropped connection);
 * - `error-event`: two deltas, then an `error` event;
 * - `json`: the plain text result as one JSON body even when asked to stream (a server that ignores `stream`).
 *
 * The file ends with the rig every responses*.test.ts starts: a gateway with both adapters in front of this fake and
 * the chat-completions simulator server (`useResponsesRig` starts it for a whole test file).
 */
import type { Server } from "bun";
import { afterAll, beforeAll, expect } from "bun:test";
import OpenAI from "openai";
import { startSimulatorServer, type SimulatorServer } from "../../providers/simulator/server.ts";
import type { GatewayConfig } from "../../core/config/types.ts";
import { startTestGateway, type TestGateway } from "./gateway.ts";

/** A request the fake received. */
export interface FakeRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** Parsed JSON body. */
  body: Record<string, unknown>;
  /** The body exactly as received. */
  raw: string;
}

/** A running fake upstream. */
export interface FakeResponsesUpstream {
  /** Base URL including `/v1`. */
  url: string;
  requests: FakeRequest[];
  /** The most recent request (throws when there was none, so a test cannot assert on nothing). */
  last(): FakeRequest;
  stop(): Promise<void>;
}

export const FAKE_IDS = {
  response: "resp_68a1b2c3d4e5f60718293a4b5c6d7e8f",
  reasoning: "rs_68a1b2c3e1f2a3b4c5d6e7f8091a2b3c",
  message: "msg_68a1b2c4f5e6d7c8b9a0f1e2d3c4b5a6",
  callItem: "fc_68a1b2c5a6b7c8d9e0f1a2b3c4d5e6f7",
  callId: "call_Qx7bN3mVt2LkR9sW",
} as const;

/** The opaque reasoning state a stateless client must carry back on the next turn. */
export const FAKE_ENCRYPTED = "gAAAAABooRLF3k9vXq1pZr7c_encrypted_reasoning_blob==";
export const FAKE_SUMMARY = "**Planning the lookup**\n\nThe user wants Paris weather.";
export const FAKE_TEXT = "Hello from the Responses upstream.";
/** The text of the `reasoning` scenario's message (after the reasoning item). */
export const FAKE_REASONED_TEXT = "It is sunny in Paris.";
/** Text deltas of the `failed` / `cut` / `error-event` streams before they break. */
export const FAKE_PARTIAL = ["Partial ", "answer"];
/** The second call of the `tools2` scenario. */
export const FAKE_SECOND_CALL = { itemId: "fc_68a1b2c6b7c8d9e0f1a2b3c4d5e6f708", callId: "call_Zk2pL8rTq4WnX1vB" } as const;
export const FAKE_CITED_TEXT = "See the docs for details.";
export const FAKE_ANNOTATION = { type: "url_citation", start_index: 8, end_index: 12, url: "https://example.com/docs", title: "Docs" };
export const FAKE_REFUSAL = "I can't help with that.";

/** Usage as OpenAI reports it for these fixtures. */
export const FAKE_USAGE = {
  input_tokens: 328,
  input_tokens_details: { cached_tokens: 256 },
  output_tokens: 87,
  output_tokens_details: { reasoning_tokens: 64 },
  total_tokens: 415,
};

type Json = Record<string, unknown>;

/** The echo part every OpenAI result repeats (built from what the request sent). */
function echo(body: Json): Json {
  return {
    background: false,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    max_tool_calls: null,
    metadata: body.metadata ?? {},
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: null,
    prompt_cache_key: body.prompt_cache_key ?? null,
    reasoning: body.reasoning ?? { effort: null, summary: null },
    safety_identifier: body.safety_identifier ?? null,
    // The tier the upstream served at: the one asked for (these fixtures serve every tier).
    service_tier: body.service_tier ?? "default",
    store: false,
    temperature: body.temperature ?? 1.0,
    text: body.text ?? { format: { type: "text" }, verbosity: "medium" },
    tool_choice: body.tool_choice ?? "auto",
    tools: body.tools ?? [],
    top_logprobs: 0,
    top_p: body.top_p ?? 1.0,
    truncation: "disabled",
    user: body.user ?? null,
  };
}

const messageItem = (text: string, status = "completed"): Json => ({
  id: FAKE_IDS.message,
  type: "message",
  status,
  content: [{ type: "output_text", annotations: [], logprobs: [], text }],
  role: "assistant",
});
const reasoningItem: Json = { id: FAKE_IDS.reasoning, type: "reasoning", encrypted_content: FAKE_ENCRYPTED, summary: [{ type: "summary_text", text: FAKE_SUMMARY }] };
const callItem = (args: string, ids: { itemId: string; callId: string } = { itemId: FAKE_IDS.callItem, callId: FAKE_IDS.callId }): Json => ({
  id: ids.itemId,
  type: "function_call",
  status: "completed",
  arguments: args,
  call_id: ids.callId,
  name: "get_weather",
});

interface Plan {
  output: Json[];
  status: "completed" | "incomplete";
  usage: Json;
}

/** What a finished turn of a scenario contains. */
function planFor(scenario: string, body: Json): Plan {
  const input = Array.isArray(body.input) ? (body.input as Json[]) : [];
  const lastItem = input.at(-1);
  if (lastItem?.type === "function_call_output") {
    return { output: [messageItem(`Tool said: ${String(lastItem.output)}`)], status: "completed", usage: { ...FAKE_USAGE, output_tokens_details: { reasoning_tokens: 0 } } };
  }
  switch (scenario) {
    case "reasoning":
      return { output: [reasoningItem, messageItem(FAKE_REASONED_TEXT)], status: "completed", usage: FAKE_USAGE };
    case "tool":
      return { output: [callItem('{"city":"Paris"}')], status: "completed", usage: FAKE_USAGE };
    case "tools2":
      return {
        output: [messageItem("Checking both."), callItem('{"city":"Paris"}'), callItem('{"city":"Rome"}', FAKE_SECOND_CALL)],
        status: "completed",
        usage: FAKE_USAGE,
      };
    case "cited":
      return {
        output: [{ ...messageItem(FAKE_CITED_TEXT), content: [{ type: "output_text", annotations: [FAKE_ANNOTATION], logprobs: [], text: FAKE_CITED_TEXT }] }],
        status: "completed",
        usage: FAKE_USAGE,
      };
    case "refusal":
      return { output: [{ ...messageItem(""), content: [{ type: "refusal", refusal: FAKE_REFUSAL }] }], status: "completed", usage: FAKE_USAGE };
    case "incomplete":
      return {
        output: [messageItem("Once upon a", "incomplete")],
        status: "incomplete",
        usage: { ...FAKE_USAGE, output_tokens: 16, output_tokens_details: { reasoning_tokens: 0 } },
      };
    default:
      return { output: [messageItem(FAKE_TEXT)], status: "completed", usage: FAKE_USAGE };
  }
}

function resultOf(body: Json, plan: Plan): Json {
  return {
    id: FAKE_IDS.response,
    object: "response",
    created_at: 1755189700,
    status: plan.status,
    completed_at: plan.status === "completed" ? 1755189703 : null,
    error: null,
    incomplete_details: plan.status === "incomplete" ? { reason: "max_output_tokens" } : null,
    model: String(body.model ?? "gpt-5-2025-08-07"),
    output: plan.output,
    ...echo(body),
    usage: plan.usage,
  };
}

function inProgressOf(body: Json): Json {
  return { ...resultOf(body, { output: [], status: "completed", usage: {} }), status: "in_progress", completed_at: null, usage: null };
}

const at = (outputIndex: number, itemId: string) => ({ item_id: itemId, output_index: outputIndex });

/** The item-scoped events OpenAI streams for one output item (text split in two deltas). */
function itemEvents(item: Json, index: number): Json[] {
  const id = String(item.id);
  if (item.type === "reasoning") {
    const summary = (item.summary as Json[])[0] as Json;
    const text = String(summary.text);
    const cut = text.indexOf("\n");
    return [
      { type: "response.output_item.added", output_index: index, item: { id, type: "reasoning", encrypted_content: "gAAAAABooRLFpartial", summary: [] } },
      { type: "response.reasoning_summary_part.added", ...at(index, id), summary_index: 0, part: { type: "summary_text", text: "" } },
      { type: "response.reasoning_summary_text.delta", ...at(index, id), summary_index: 0, delta: text.slice(0, cut), obfuscation: "a1b2" },
      { type: "response.reasoning_summary_text.delta", ...at(index, id), summary_index: 0, delta: text.slice(cut), obfuscation: "c3" },
      { type: "response.reasoning_summary_text.done", ...at(index, id), summary_index: 0, text },
      { type: "response.reasoning_summary_part.done", ...at(index, id), summary_index: 0, part: summary },
      { type: "response.output_item.done", output_index: index, item },
    ];
  }
  if (item.type === "function_call") {
    const args = String(item.arguments);
    const half = Math.floor(args.length / 2);
    return [
      { type: "response.output_item.added", output_index: index, item: { ...item, status: "in_progress", arguments: "" } },
      { type: "response.function_call_arguments.delta", ...at(index, id), delta: args.slice(0, half), obfuscation: "z" },
      { type: "response.function_call_arguments.delta", ...at(index, id), delta: args.slice(half), obfuscation: "w" },
      { type: "response.function_call_arguments.done", ...at(index, id), arguments: args },
      { type: "response.output_item.done", output_index: index, item },
    ];
  }
  const content = (item.content as Json[])[0] as Json;
  const opened = { type: "response.output_item.added", output_index: index, item: { ...item, status: "in_progress", content: [] } };
  if (content.type === "refusal") {
    const refusal = String(content.refusal);
    return [
      opened,
      { type: "response.content_part.added", ...at(index, id), content_index: 0, part: { type: "refusal", refusal: "" } },
      { type: "response.refusal.delta", ...at(index, id), content_index: 0, delta: refusal.slice(0, 5) },
      { type: "response.refusal.delta", ...at(index, id), content_index: 0, delta: refusal.slice(5) },
      { type: "response.refusal.done", ...at(index, id), content_index: 0, refusal },
      { type: "response.content_part.done", ...at(index, id), content_index: 0, part: content },
      { type: "response.output_item.done", output_index: index, item },
    ];
  }
  const text = String(content.text);
  const space = Math.max(1, text.indexOf(" "));
  const annotations = (content.annotations as Json[]).map((annotation, annotationIndex) => ({
    type: "response.output_text.annotation.added",
    ...at(index, id),
    content_index: 0,
    annotation_index: annotationIndex,
    annotation,
  }));
  return [
    opened,
    { type: "response.content_part.added", ...at(index, id), content_index: 0, part: { type: "output_text", annotations: [], logprobs: [], text: "" } },
    { type: "response.output_text.delta", ...at(index, id), content_index: 0, delta: text.slice(0, space), logprobs: [], obfuscation: "x" },
    { type: "response.output_text.delta", ...at(index, id), content_index: 0, delta: text.slice(space), logprobs: [], obfuscation: "y" },
    ...annotations,
    { type: "response.output_text.done", ...at(index, id), content_index: 0, text, logprobs: [] },
    { type: "response.content_part.done", ...at(index, id), content_index: 0, part: content },
    { type: "response.output_item.done", output_index: index, item },
  ];
}

/** A full streamed turn: created, in_progress, the items, then completed / incomplete. */
function streamOf(body: Json, plan: Plan): Json[] {
  const inProgress = inProgressOf(body);
  const result = resultOf(body, plan);
  return [
    { type: "response.created", response: inProgress },
    { type: "response.in_progress", response: inProgress },
    ...plan.output.flatMap((item, index) => itemEvents(item, index)),
    { type: plan.status === "completed" ? "response.completed" : "response.incomplete", response: result },
  ];
}

/** The beginning of a text turn that breaks after two deltas. */
function brokenStart(body: Json): Json[] {
  const inProgress = inProgressOf(body);
  const id = FAKE_IDS.message;
  return [
    { type: "response.created", response: inProgress },
    { type: "response.in_progress", response: inProgress },
    { type: "response.output_item.added", output_index: 0, item: { id, type: "message", status: "in_progress", content: [], role: "assistant" } },
    { type: "response.content_part.added", ...at(0, id), content_index: 0, part: { type: "output_text", annotations: [], logprobs: [], text: "" } },
    ...FAKE_PARTIAL.map((delta) => ({ type: "response.output_text.delta", ...at(0, id), content_index: 0, delta, logprobs: [] })),
  ];
}

const encoder = new TextEncoder();

/** OpenAI's framing: `event:` line, then `data:`, numbered by `sequence_number`. */
function sseBody(events: Json[], ending: "close" | "reset" = "close"): Response {
  const frames = events.map((event, i) => `event: ${String(event.type)}\ndata: ${JSON.stringify({ ...event, sequence_number: i })}\n\n`);
  let next = 0;
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const frame = frames[next++];
      if (frame === undefined) {
        if (ending === "close") return controller.close();
        // `reset` breaks the chunked body once what came before was flushed (what a dropped connection looks like).
        await Bun.sleep(20);
        // No reason: Bun would log one; the client sees ECONNRESET either way.
        controller.error();
        return;
      }
      controller.enqueue(encoder.encode(frame));
    },
  });
  return new Response(stream, { headers: { "content-type": "text/event-stream; charset=utf-8" } });
}

function headersOf(req: Request): Record<string, string> {
  const out: Record<string, string> = {};
  req.headers.forEach((value, key) => {
    out[key] = value;
  });
  return out;
}

/** `[fake NAME key=value …]` anywhere in the input. */
function markerOf(raw: string): { scenario: string; args: Record<string, string> } {
  const match = /\[fake ([a-z0-9-]+)((?: [a-z]+=[^\]\s]+)*)\]/.exec(raw);
  if (!match) return { scenario: "text", args: {} };
  const args: Record<string, string> = {};
  for (const pair of (match[2] ?? "").trim().split(/\s+/).filter(Boolean)) {
    const [key, value] = pair.split("=");
    if (key && value) args[key] = value;
  }
  return { scenario: match[1] ?? "text", args };
}

/** Starts the fake on loopback, port 0. */
export function startFakeResponsesUpstream(): FakeResponsesUpstream {
  const requests: FakeRequest[] = [];
  const server: Server<undefined> = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: async (req) => {
      const path = new URL(req.url).pathname;
      const raw = await req.text();
      let body: Json;
      try {
        body = JSON.parse(raw) as Json;
      } catch {
        return Response.json({ error: { message: "Invalid JSON body", type: "invalid_request_error", param: null, code: null } }, { status: 400 });
      }
      requests.push({ method: req.method, path, headers: headersOf(req), body, raw });
      if (req.method !== "POST" || path !== "/v1/responses") {
        return Response.json({ error: { message: `Invalid URL (${req.method} ${path})`, type: "invalid_request_error", param: null, code: null } }, { status: 404 });
      }
      const { scenario, args } = markerOf(JSON.stringify(body.input ?? ""));
      const stream = body.stream === true;
      if (scenario === "error") {
        const status = Number(args.status ?? 429);
        const error =
          status === 429
            ? { message: "Rate limit reached for gpt-5 in organization org-1 on tokens per min (TPM): Limit 30000.", type: "tokens", param: null, code: "rate_limit_exceeded" }
            : { message: "Invalid value for 'input'.", type: "invalid_request_error", param: "input", code: "invalid_value" };
        return Response.json({ error }, { status, headers: status === 429 ? { "retry-after": "2" } : {} });
      }
      if (scenario === "failed") {
        const failure = { code: "server_error", message: "The model produced invalid content." };
        if (!stream) return Response.json({ ...resultOf(body, { output: [], status: "completed", usage: {} }), status: "failed", completed_at: null, error: failure, usage: null });
        const failed = { ...inProgressOf(body), status: "failed", error: failure };
        return sseBody([...brokenStart(body), { type: "response.failed", response: failed }]);
      }
      if (scenario === "cut" && stream) return sseBody(brokenStart(body));
      if (scenario === "reset" && stream) return sseBody(brokenStart(body), "reset");
      if (scenario === "error-event" && stream) {
        return sseBody([...brokenStart(body), { type: "error", code: "server_error", message: "The server had an error while processing your request.", param: null }]);
      }
      const plan = planFor(scenario, body);
      return stream && scenario !== "json" ? sseBody(streamOf(body, plan)) : Response.json(resultOf(body, plan));
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}/v1`,
    requests,
    last() {
      const request = requests.at(-1);
      if (!request) throw new Error("the fake Responses upstream received no request");
      return request;
    },
    stop: async () => {
      await server.stop(true);
    },
  };
}

/* ------------------------------------------------------------------------------------------------------------------
 * The rig the Responses integration tests share: a gateway on a loopback port with the two adapters that serve
 * POST /responses, each in front of a recording upstream, and the official client pointed at it.
 * ---------------------------------------------------------------------------------------------------------------- */

/** Served by the `openai` adapter in front of the chat-completions simulator server (upstream model `model-a`). */
export const CHAT_MODEL = "acme/model-a";
/** Served by the `openai-responses` adapter in front of the fake Responses upstream (upstream model below). */
export const NATIVE_MODEL = "native/gpt-5";
export const NATIVE_UPSTREAM_MODEL = "gpt-5-2025-08-07";
/** USD per token on both models; the native one also prices cached reads. */
export const PRICES = { prompt: 0.000001, completion: 0.000002, cacheRead: 0.0000001 } as const;

export interface ResponsesRig {
  gw: TestGateway;
  sim: SimulatorServer;
  fake: FakeResponsesUpstream;
  client: OpenAI;
  /** Body of the simulator's most recent request. */
  simLast(): Record<string, any>;
  close(): Promise<void>;
}

/**
 * Upstream failures in these tests are scenarios, not outages: no retries and no circuit breaker, so each failure
 * reaches the client exactly once and never takes an endpoint out of routing for the tests after it. Written against
 * the parsed config loosely, so it is a no-op for a routing layer without these settings.
 */
export function withoutRetries(config: GatewayConfig): void {
  const loose = config as unknown as { routing?: { breaker?: Record<string, unknown> } & Record<string, unknown> };
  if (!loose.routing) return;
  loose.routing = { ...loose.routing, maxRetries: 0, breaker: { ...loose.routing.breaker, failureThreshold: 1_000_000 } };
}

export async function startResponsesRig(options: { keepAliveMs?: number } = {}): Promise<ResponsesRig> {
  const sim = startSimulatorServer({ record: true });
  const fake = startFakeResponsesUpstream();
  const gw = await startTestGateway({
    file: {
      ...(options.keepAliveMs === undefined ? {} : { server: { keep_alive_ms: options.keepAliveMs } }),
      providers: [
        {
          id: "acme",
          adapter: "openai",
          base_url: sim.url,
          api_key: "sim-secret",
          models: [
            { id: CHAT_MODEL, upstream_model: "model-a", tiers: ["default", "flex", "priority"], pricing: { prompt: PRICES.prompt, completion: PRICES.completion } },
          ],
        },
        {
          id: "native",
          adapter: "openai-responses",
          base_url: fake.url,
          api_key: "fake-secret",
          headers: { "openai-organization": "org-1" },
          models: [
            {
              id: NATIVE_MODEL,
              upstream_model: NATIVE_UPSTREAM_MODEL,
              tiers: ["default", "flex", "priority"],
              pricing: { prompt: PRICES.prompt, completion: PRICES.completion, cache_read: PRICES.cacheRead },
            },
          ],
        },
      ],
    },
    configure: withoutRetries,
  });
  return {
    gw,
    sim,
    fake,
    client: new OpenAI({ baseURL: gw.baseUrl, apiKey: gw.inferenceKey, maxRetries: 0 }),
    simLast() {
      const request = sim.requests.at(-1);
      if (!request) throw new Error("the simulator received no request");
      return request.body as Record<string, any>;
    },
    async close() {
      await gw.close();
      await sim.stop();
      await fake.stop();
    },
  };
}

/**
 * Starts the rig before the file's tests and closes it after them. The returned object is usable at module level:
 * its members read the running rig (and throw when used outside a test, before the rig started).
 */
export function useResponsesRig(options: { keepAliveMs?: number } = {}): ResponsesRig {
  let rig: ResponsesRig | undefined;
  beforeAll(async () => {
    rig = await startResponsesRig(options);
  });
  afterAll(() => rig?.close());
  const current = (): ResponsesRig => {
    if (!rig) throw new Error("the responses rig is not running (use it inside a test)");
    return rig;
  };
  return {
    get gw() {
      return current().gw;
    },
    get sim() {
      return current().sim;
    },
    get fake() {
      return current().fake;
    },
    get client() {
      return current().client;
    },
    simLast: () => current().simLast(),
    close: () => current().close(),
  };
}

/** The routing metadata of a one-endpoint, first-attempt success through the rig (`provider` is `acme` or `native`). */
export function expectServiceMetadata(metadata: Record<string, any>, model: string, provider: string): void {
  expect(metadata).toMatchObject({
    attempt: 1,
    endpoints: { available: [{ model, provider, selected: true }], total: 1 },
    is_byok: false,
    requested: model,
    strategy: "direct",
  });
  expect(Number.isInteger(metadata.generation_time)).toBe(true);
  expect(typeof metadata.region).toBe("string");
  expect(metadata.summary).toContain(provider);
}
