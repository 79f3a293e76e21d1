/**
 * POST /responses with `stream: true`, raw SSE over a loopback port, on both adapters: the exact event sequence a
 * Responses client expects (item and content indexes, `sequence_number`, `.done` events matching the deltas, one
 * terminal event, then `data: [DONE]`), usage and cost on `response.completed`, the debug chunk, tools, reasoning,
 * annotations and refusals streamed, and upstream failures after the stream started (`response.failed`, never a
 * silent cut). The official client's iteration, its `responses.stream()` helper, failures before the stream,
 * service_metadata and keep-alive comments are in responses-stream-client.test.ts.
 */
import { describe, expect, test } from "bun:test";
import type OpenAI from "openai";
import {
  FAKE_ANNOTATION,
  FAKE_CITED_TEXT,
  FAKE_ENCRYPTED,
  FAKE_IDS,
  FAKE_PARTIAL,
  FAKE_REASONED_TEXT,
  FAKE_REFUSAL,
  FAKE_SECOND_CALL,
  FAKE_SUMMARY,
  FAKE_TEXT,
  CHAT_MODEL as CHAT,
  NATIVE_MODEL as NATIVE,
  useResponsesRig,
} from "../support/fake-responses-upstream.ts";

type Json = Record<string, any>;

const rig = useResponsesRig();

/** One SSE frame: a comment, the `[DONE]` sentinel, or an event with its `event:` name and JSON data. */
type Frame = { kind: "comment"; text: string } | { kind: "done" } | { kind: "event"; name: string | undefined; data: Json };

function parseFrames(raw: string): Frame[] {
  expect(raw.endsWith("\n\n")).toBe(true);
  return raw
    .split("\n\n")
    .filter((block) => block !== "")
    .map((block): Frame => {
      if (block.startsWith(":")) return { kind: "comment", text: block };
      const lines = block.split("\n");
      const name = lines.find((l) => l.startsWith("event: "))?.slice(7);
      const data = lines.filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).join("\n");
      expect(data).not.toBe("");
      if (data === "[DONE]") return { kind: "done" };
      return { kind: "event", name, data: JSON.parse(data) as Json };
    });
}

interface RawStream {
  res: Response;
  frames: Frame[];
  /** Events only (comments and `[DONE]` left out). */
  events: Json[];
  raw: string;
}

async function rawStream(body: Json, headers: Record<string, string> = {}): Promise<RawStream> {
  const res = await rig.gw.request("/responses", { method: "POST", headers, json: { stream: true, ...body } });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("text/event-stream");
  const raw = await res.text();
  const frames = parseFrames(raw);
  const events = frames.flatMap((f) => (f.kind === "event" ? [f.data] : []));
  return { res, frames, events, raw };
}

const isInt = (v: unknown) => Number.isInteger(v);

/**
 * What a Responses client relies on: `[DONE]` last and once, `event:` names matching `type`, sequence numbers
 * 0,1,2…, created then in_progress first, every item and content part opened before its deltas and closed with
 * the matching `.done` carrying the concatenated deltas, one terminal event whose output equals the closed items.
 */
function checkSequence(frames: Frame[], terminal: "response.completed" | "response.incomplete" | "response.failed"): Json[] {
  expect(frames.at(-1)).toEqual({ kind: "done" });
  expect(frames.filter((f) => f.kind === "done")).toHaveLength(1);
  const events = frames.flatMap((f) => (f.kind === "event" ? [f] : []));
  for (const f of events) expect(f.name).toBe(f.data.type);
  const data = events.map((f) => f.data).filter((e) => e.type !== "response.debug");
  data.forEach((e, i) => expect(e.sequence_number).toBe(i + (data.length === events.length ? 0 : 1)));
  expect(data[0]!.type).toBe("response.created");
  expect(data[1]!.type).toBe("response.in_progress");
  expect(data[0]!.response.status).toBe("in_progress");
  const last = data.at(-1)!;
  expect(last.type).toBe(terminal);
  expect(data.filter((e) => /^response\.(completed|incomplete|failed)$/.test(e.type))).toHaveLength(1);

  const openItems = new Map<number, Json>();
  const doneItems = new Map<number, Json>();
  const texts = new Map<string, string>();
  for (const e of data.slice(2, -1)) {
    switch (e.type) {
      case "response.output_item.added":
        expect(openItems.has(e.output_index) || doneItems.has(e.output_index)).toBe(false);
        expect(e.output_index).toBe(openItems.size + doneItems.size);
        openItems.set(e.output_index, e.item);
        break;
      case "response.output_item.done":
        expect(openItems.get(e.output_index)?.id).toBe(e.item.id);
        openItems.delete(e.output_index);
        doneItems.set(e.output_index, e.item);
        break;
      case "response.content_part.added":
        expect(openItems.get(e.output_index)?.id).toBe(e.item_id);
        if (e.part.type === "output_text") texts.set(`${e.item_id}/${e.content_index}`, "");
        break;
      case "response.output_text.delta": {
        expect(typeof e.item_id).toBe("string");
        expect(isInt(e.output_index)).toBe(true);
        expect(isInt(e.content_index)).toBe(true);
        expect(typeof e.delta).toBe("string");
        expect(Array.isArray(e.logprobs)).toBe(true);
        expect(isInt(e.sequence_number)).toBe(true);
        expect(openItems.get(e.output_index)?.id).toBe(e.item_id);
        const key = `${e.item_id}/${e.content_index}`;
        expect(texts.has(key)).toBe(true);
        texts.set(key, texts.get(key)! + e.delta);
        break;
      }
      case "response.output_text.done":
        expect(e.text).toBe(texts.get(`${e.item_id}/${e.content_index}`)!);
        break;
      case "response.content_part.done":
        if (e.part.type === "output_text") expect(e.part.text).toBe(texts.get(`${e.item_id}/${e.content_index}`)!);
        break;
      case "response.function_call_arguments.delta":
      case "response.function_call_arguments.done":
      case "response.reasoning_summary_text.delta":
      case "response.reasoning_text.delta":
        expect(openItems.get(e.output_index)?.id).toBe(e.item_id);
        break;
      default:
        break;
    }
  }
  if (terminal !== "response.failed") {
    expect(openItems.size).toBe(0);
    expect(last.response.output).toEqual([...doneItems.keys()].sort((a, b) => a - b).map((i) => doneItems.get(i)));
  }
  return data;
}

const types = (events: Json[]) => events.map((e) => e.type);

describe("raw SSE", () => {
  for (const [label, model, input, text] of [
    ["openai adapter", CHAT, "Stream [sim tokens=4]", undefined],
    ["openai-responses adapter", NATIVE, "Stream [fake text]", FAKE_TEXT],
  ] as const) {
    test(`${label}: the full event sequence, then data: [DONE]`, async () => {
      const { res, frames, raw } = await rawStream({ model, input });
      const events = checkSequence(frames, "response.completed");
      const deltas = events.filter((e) => e.type === "response.output_text.delta");
      expect(deltas.length).toBeGreaterThanOrEqual(2);
      expect(types(events)).toEqual([
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.content_part.added",
        ...deltas.map(() => "response.output_text.delta"),
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.completed",
      ]);
      expect(raw.trimEnd().endsWith("data: [DONE]")).toBe(true);
      const id = res.headers.get("x-generation-id")!;
      expect(events[0]!.response.id).toBe(id);
      const completed = events.at(-1)!.response;
      expect(completed).toMatchObject({ id, object: "response", status: "completed", model, error: null, incomplete_details: null });
      expect(isInt(completed.completed_at)).toBe(true);
      const full = deltas.map((d) => d.delta).join("");
      if (text !== undefined) expect(full).toBe(text);
      expect(completed.output[0].content[0].text).toBe(full);
      expect(completed.usage.output_tokens).toBeGreaterThan(0);
      expect(completed.usage.total_tokens).toBe(completed.usage.input_tokens + completed.usage.output_tokens);
      expect(completed.usage.cost).toBeGreaterThan(0);
      expect(completed.usage.cost).toBeCloseTo(completed.usage.cost_details.upstream_inference_input_cost + completed.usage.cost_details.upstream_inference_output_cost, 12);
      expect(completed).not.toHaveProperty("service_metadata");
    });
  }

  test("openai-responses adapter: cached and reasoning tokens and the cost arrive on response.completed", async () => {
    const { frames } = await rawStream({ model: NATIVE, input: "Why? [fake reasoning]" });
    const usage = checkSequence(frames, "response.completed").at(-1)!.response.usage;
    expect(usage).toMatchObject({ input_tokens: 328, input_tokens_details: { cached_tokens: 256 }, output_tokens: 87, output_tokens_details: { reasoning_tokens: 64 }, total_tokens: 415 });
    expect(usage.cost).toBeCloseTo(0.0002716, 12);
  });

  test("openai adapter: the chat upstream is asked to stream with usage; instructions become the system message", async () => {
    await rawStream({ model: CHAT, instructions: "Be brief.", input: "hi", max_output_tokens: 9 });
    const body = rig.sim.requests.at(-1)!.body as Json;
    expect(body).toMatchObject({ stream: true, stream_options: { include_usage: true }, max_completion_tokens: 9 });
    expect(body.messages[0]).toEqual({ role: "system", content: "Be brief." });
  });

  test("openai-responses adapter: an upstream that ignores stream: true and answers one JSON body still streams", async () => {
    const { frames } = await rawStream({ model: NATIVE, input: "hi [fake json]" });
    const events = checkSequence(frames, "response.completed");
    expect(rig.fake.last().body.stream).toBe(true);
    expect(events.filter((e) => e.type === "response.output_text.delta").map((e) => e.delta).join("")).toBe(FAKE_TEXT);
    expect(events.at(-1)!.response.usage).toMatchObject({ input_tokens: 328, output_tokens: 87 });
  });

  test("openai-responses adapter: the Responses upstream is asked to stream, instructions as instructions", async () => {
    await rawStream({ model: NATIVE, instructions: "Be brief.", input: "hi", max_output_tokens: 9 });
    expect(rig.fake.last().body).toMatchObject({ stream: true, store: false, instructions: "Be brief.", max_output_tokens: 9 });
  });

  for (const [label, model, input, field] of [
    ["openai adapter", CHAT, "Long [sim tokens=20]", "max_completion_tokens"],
    ["openai-responses adapter", NATIVE, "Long [fake incomplete]", "max_output_tokens"],
  ] as const) {
    test(`${label}: a length cut ends with response.incomplete and incomplete_details`, async () => {
      const { frames } = await rawStream({ model, input, max_output_tokens: 3 });
      const last = checkSequence(frames, "response.incomplete").at(-1)!;
      expect(last.response.status).toBe("incomplete");
      expect(last.response.incomplete_details).toEqual({ reason: "max_output_tokens" });
      expect(last.response.output[0].status).toBe("incomplete");
      const seen = model === CHAT ? (rig.sim.requests.at(-1)!.body as Json) : rig.fake.last().body;
      expect(seen[field]).toBe(3);
    });
  }
});

describe("debug.echo_upstream_body", () => {
  for (const [label, model, upstreamBody] of [
    ["openai adapter", CHAT, () => rig.sim.requests.at(-1)!.body],
    ["openai-responses adapter", NATIVE, () => rig.fake.last().body],
  ] as const) {
    test(`${label}: the first chunk is the transformed upstream body`, async () => {
      const { frames } = await rawStream({ model, input: "hi", instructions: "Be brief.", debug: { echo_upstream_body: true } });
      const first = frames[0]!;
      expect(first.kind).toBe("event");
      const debug = (first as Extract<Frame, { kind: "event" }>).data;
      expect(debug.type).toBe("response.debug");
      expect(debug.debug.echo_upstream_body).toEqual(upstreamBody());
      const events = checkSequence(frames, "response.completed");
      expect(events[0]!.type).toBe("response.created");
    });
  }

  test("the official client's stream: true iteration yields the debug chunk first, then the normal events", async () => {
    const stream = await rig.client.responses.create({ model: CHAT, input: "hi", stream: true, debug: { echo_upstream_body: true } } as OpenAI.Responses.ResponseCreateParamsStreaming);
    const seen: Json[] = [];
    for await (const event of stream) seen.push(event as unknown as Json);
    expect(seen[0]!.type).toBe("response.debug");
    expect(seen[0]!.debug.echo_upstream_body).toEqual(rig.sim.requests.at(-1)!.body);
    expect(seen[1]!.type).toBe("response.created");
    expect(seen.at(-1)!.type).toBe("response.completed");
  });

  test("non-streaming requests ignore the flag (the debug chunk is a streaming feature)", async () => {
    const res = await rig.gw.request("/responses", { method: "POST", json: { model: CHAT, input: "hi", debug: { echo_upstream_body: true } } });
    expect(res.status).toBe(200);
    const result = (await res.json()) as Json;
    expect(result.status).toBe("completed");
    expect(JSON.stringify(result)).not.toContain("echo_upstream_body");
  });

  test("without the flag there is no debug chunk", async () => {
    const { events } = await rawStream({ model: CHAT, input: "hi", debug: { echo_upstream_body: false } });
    expect(events.some((e) => e.type === "response.debug")).toBe(false);
  });
});

describe("tools and reasoning, streamed", () => {
  const tools: OpenAI.Responses.FunctionTool[] = [
    { type: "function", name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] }, strict: false },
  ];

  for (const [label, model, input] of [
    ["openai adapter", CHAT, "Weather in Paris?"],
    ["openai-responses adapter", NATIVE, "Weather in Paris? [fake tool]"],
  ] as const) {
    test(`${label}: function-call arguments stream, and the call_id comes back on the next streamed turn`, async () => {
      const { frames } = await rawStream({ model, input, tools });
      const events = checkSequence(frames, "response.completed");
      const added = events.find((e) => e.type === "response.output_item.added")!;
      expect(added.item).toMatchObject({ type: "function_call", name: "get_weather", arguments: "", status: "in_progress" });
      const args = events.filter((e) => e.type === "response.function_call_arguments.delta").map((e) => e.delta).join("");
      const done = events.find((e) => e.type === "response.function_call_arguments.done")!;
      expect(done.arguments).toBe(args);
      expect(done.name).toBe("get_weather");
      const call = events.find((e) => e.type === "response.output_item.done")!.item;
      expect(call).toMatchObject({ type: "function_call", call_id: added.item.call_id, arguments: args, status: "completed" });
      if (model === NATIVE) expect(call).toMatchObject({ id: FAKE_IDS.callItem, call_id: FAKE_IDS.callId });

      const stream = rig.client.responses.stream({ model, tools, input: [{ role: "user", content: input }, call, { type: "function_call_output", call_id: call.call_id, output: "sunny, 21C" }] });
      const final = await stream.finalResponse();
      expect(final.output_text).toContain("sunny, 21C");
      if (model === CHAT) {
        const messages = (rig.sim.requests.at(-1)!.body as Json).messages as Json[];
        expect(messages[1]!.tool_calls[0]).toEqual({ id: call.call_id, type: "function", function: { name: "get_weather", arguments: args } });
        expect(messages[2]).toEqual({ role: "tool", tool_call_id: call.call_id, content: "sunny, 21C" });
      } else {
        expect((rig.fake.last().body.input as Json[]).slice(1)).toEqual([
          { type: "function_call", call_id: FAKE_IDS.callId, name: "get_weather", arguments: args, id: FAKE_IDS.callItem },
          { type: "function_call_output", call_id: FAKE_IDS.callId, output: "sunny, 21C" },
        ]);
      }
    });
  }

  test("openai-responses adapter: a streamed function call through the helper keeps the call ids", async () => {
    const final = await rig.client.responses.stream({ model: NATIVE, input: "Weather? [fake tool]", tools }).finalResponse();
    expect(final.output[0]).toMatchObject({ type: "function_call", id: FAKE_IDS.callItem, call_id: FAKE_IDS.callId, arguments: '{"city":"Paris"}' });
  });

  test("openai-responses adapter: text then two parallel calls, each item with its own index and ids", async () => {
    const { frames } = await rawStream({ model: NATIVE, input: "Paris and Rome? [fake tools2]", tools });
    const events = checkSequence(frames, "response.completed");
    const output = events.at(-1)!.response.output as Json[];
    expect(output.map((item) => item.type)).toEqual(["message", "function_call", "function_call"]);
    expect(output.slice(1)).toMatchObject([
      { id: FAKE_IDS.callItem, call_id: FAKE_IDS.callId, arguments: '{"city":"Paris"}' },
      { id: FAKE_SECOND_CALL.itemId, call_id: FAKE_SECOND_CALL.callId, arguments: '{"city":"Rome"}' },
    ]);
    for (const [index, args] of [[1, '{"city":"Paris"}'], [2, '{"city":"Rome"}']] as const) {
      const deltas = events.filter((e) => e.type === "response.function_call_arguments.delta" && e.output_index === index);
      expect(deltas.map((e) => e.delta).join("")).toBe(args);
      expect(deltas.every((e) => e.item_id === output[index]!.id)).toBe(true);
    }
    const final = await rig.client.responses.stream({ model: NATIVE, input: "Paris and Rome? [fake tools2]", tools }).finalResponse();
    expect(final.output.map((item) => (item.type === "function_call" ? item.call_id : item.type))).toEqual(["message", FAKE_IDS.callId, FAKE_SECOND_CALL.callId]);
  });

  test("openai-responses adapter: annotations stream as annotation.added and stay on the text", async () => {
    const { frames } = await rawStream({ model: NATIVE, input: "Docs? [fake cited]" });
    const events = checkSequence(frames, "response.completed");
    const added = events.filter((e) => e.type === "response.output_text.annotation.added");
    expect(added).toHaveLength(1);
    expect(added[0]).toMatchObject({ output_index: 0, content_index: 0, annotation_index: 0, annotation: FAKE_ANNOTATION });
    const doneAt = events.findIndex((e) => e.type === "response.output_text.done");
    expect(events.indexOf(added[0]!)).toBeLessThan(doneAt);
    expect(events.at(-1)!.response.output[0].content).toEqual([{ type: "output_text", text: FAKE_CITED_TEXT, annotations: [FAKE_ANNOTATION] }]);
    const final = await rig.client.responses.stream({ model: NATIVE, input: "Docs? [fake cited]" }).finalResponse();
    expect((final.output[0] as OpenAI.Responses.ResponseOutputMessage).content[0]).toMatchObject({ text: FAKE_CITED_TEXT, annotations: [FAKE_ANNOTATION] });
  });

  test("openai-responses adapter: a refusal streams as refusal events", async () => {
    const { frames } = await rawStream({ model: NATIVE, input: "Bad idea [fake refusal]" });
    const events = checkSequence(frames, "response.completed");
    expect(events.filter((e) => e.type === "response.refusal.delta").map((e) => e.delta).join("")).toBe(FAKE_REFUSAL);
    expect(events.find((e) => e.type === "response.refusal.done")!.refusal).toBe(FAKE_REFUSAL);
    expect(events.at(-1)!.response.output[0].content).toEqual([{ type: "refusal", refusal: FAKE_REFUSAL }]);
    const final = await rig.client.responses.stream({ model: NATIVE, input: "Bad idea [fake refusal]" }).finalResponse();
    expect((final.output[0] as OpenAI.Responses.ResponseOutputMessage).content[0]).toMatchObject({ type: "refusal", refusal: FAKE_REFUSAL });
  });

  test("openai-responses adapter: streamed reasoning summary and encrypted content, carried back on the next turn", async () => {
    const { frames } = await rawStream({ model: NATIVE, input: "Weather? [fake reasoning]", reasoning: { effort: "low", summary: "auto" } });
    const events = checkSequence(frames, "response.completed");
    const summary = events.filter((e) => e.type === "response.reasoning_summary_text.delta").map((e) => e.delta).join("");
    expect(summary).toBe(FAKE_SUMMARY);
    expect(events.find((e) => e.type === "response.reasoning_summary_text.done")!.text).toBe(FAKE_SUMMARY);
    const reasoning = events.find((e) => e.type === "response.output_item.done" && e.item.type === "reasoning")!.item;
    expect(reasoning).toMatchObject({ id: FAKE_IDS.reasoning, encrypted_content: FAKE_ENCRYPTED, summary: [{ type: "summary_text", text: FAKE_SUMMARY }] });
    const output = events.at(-1)!.response.output as Json[];
    expect(output.map((item) => item.type)).toEqual(["reasoning", "message"]);
    expect(output[1]!.content[0].text).toBe(FAKE_REASONED_TEXT);

    const final = await rig.client.responses
      .stream({ model: NATIVE, reasoning: { effort: "low" }, input: [{ role: "user", content: "Weather?" }, ...(output as OpenAI.Responses.ResponseInputItem[]), { role: "user", content: "And tomorrow?" }] })
      .finalResponse();
    expect(final.status).toBe("completed");
    expect((rig.fake.last().body.input as Json[])[1]).toEqual({ type: "reasoning", id: FAKE_IDS.reasoning, summary: [{ type: "summary_text", text: FAKE_SUMMARY }], encrypted_content: FAKE_ENCRYPTED });
  });

  test("openai adapter: streamed reasoning text from the chat upstream", async () => {
    const { frames } = await rawStream({ model: CHAT, input: "Think [sim tokens=3 reasoning=4]" });
    const events = checkSequence(frames, "response.completed");
    const text = events.filter((e) => e.type === "response.reasoning_text.delta").map((e) => e.delta).join("");
    expect(text.trim().split(/\s+/)).toHaveLength(4);
    expect(events.find((e) => e.type === "response.reasoning_text.done")!.text).toBe(text);
    expect(events.at(-1)!.response.output.map((item: Json) => item.type)).toEqual(["reasoning", "message"]);
    expect(events.at(-1)!.response.usage.output_tokens_details.reasoning_tokens).toBe(4);
  });
});

describe("failures", () => {
  /** The failed terminal event a Responses client gets instead of a silent cut. */
  function expectFailed(frames: Frame[], errorType: string): Json {
    const last = checkSequence(frames, "response.failed").at(-1)!;
    expect(last.error_type).toBe(errorType);
    expect(last.response.status).toBe("failed");
    expect(last.response.error_type).toBe(errorType);
    expect(typeof last.response.error.code).toBe("string");
    expect(typeof last.response.error.message).toBe("string");
    expect(last.response.error.metadata.error_type).toBe(errorType);
    expect(Number.isInteger(last.response.completed_at)).toBe(true);
    return last;
  }

  for (const [scenario, message] of [
    ["failed", "The model produced invalid content."],
    ["error-event", "The server had an error while processing your request."],
    ["cut", "Upstream stream ended before the response completed"],
    ["reset", "Upstream provider could not be reached (stream failed)"],
  ] as const) {
    test(`openai-responses adapter: upstream ${scenario} after some deltas → response.failed with error_type, then [DONE]`, async () => {
      const { frames } = await rawStream({ model: NATIVE, input: `go [fake ${scenario}]` });
      const events = frames.flatMap((f) => (f.kind === "event" ? [f.data] : []));
      expect(events.filter((e) => e.type === "response.output_text.delta").map((e) => e.delta)).toEqual(FAKE_PARTIAL);
      const last = expectFailed(frames, "provider_unavailable");
      expect(last.response.error.message).toBe(message);
      // The partial output is reported on the failed response.
      expect(last.response.output[0].content[0].text).toBe(FAKE_PARTIAL.join(""));
    });
  }

  test("openai adapter: a chat upstream cut mid-stream → response.failed (provider_unavailable), then [DONE]", async () => {
    const { frames } = await rawStream({ model: CHAT, input: "go [sim tokens=10 cut=3]" });
    const deltas = frames.filter((f) => f.kind === "event" && f.data.type === "response.output_text.delta");
    expect(deltas).toHaveLength(3);
    expectFailed(frames, "provider_unavailable");
  });
});
