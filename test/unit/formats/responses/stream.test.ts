/** Canonical events → Responses SSE: exact event sequence, counters, terminal events, [DONE]. */
import { describe, expect, test } from "bun:test";
import { GatewayError } from "../../../../core/errors.ts";
import { streamResponses } from "../../../../core/formats/responses/stream.ts";
import type { StreamEvent } from "../../../../core/model/events.ts";
import { context, drain, parseFrames, replay, TOOL_TURN, usage, type Frame } from "./helpers.ts";

async function frames(events: StreamEvent[], body: Record<string, unknown> = {}, metadata?: Record<string, unknown>): Promise<Frame[]> {
  return parseFrames(await drain(streamResponses(replay(events), context({ stream: true, ...body }, metadata))));
}

/** `type[@output_index[/content_index]]` per frame: a compact, exact picture of the sequence. */
function outline(list: Frame[]): string[] {
  return list.map(({ data }) => {
    let s = String(data.type);
    if (typeof data.output_index === "number") s += `@${data.output_index}`;
    if (typeof data.content_index === "number") s += `/${data.content_index}`;
    if (typeof data.summary_index === "number") s += `#${data.summary_index}`;
    return s;
  });
}

describe("streamResponses", () => {
  test("reasoning → message → two function calls: exact sequence and indexes", async () => {
    const list = await frames(TOOL_TURN);
    expect(outline(list)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added@0",
      "response.reasoning_summary_part.added@0#0",
      "response.reasoning_summary_text.delta@0#0",
      "response.reasoning_summary_text.delta@0#0",
      "response.reasoning_summary_text.done@0#0",
      "response.reasoning_summary_part.done@0#0",
      "response.output_item.done@0",
      "response.output_item.added@1",
      "response.content_part.added@1/0",
      "response.output_text.delta@1/0",
      "response.output_text.delta@1/0",
      "response.output_text.done@1/0",
      "response.content_part.done@1/0",
      "response.output_item.done@1",
      "response.output_item.added@2",
      "response.function_call_arguments.delta@2",
      "response.function_call_arguments.delta@2",
      "response.function_call_arguments.done@2",
      "response.output_item.done@2",
      "response.output_item.added@3",
      "response.function_call_arguments.delta@3",
      "response.function_call_arguments.done@3",
      "response.output_item.done@3",
      "response.completed",
    ]);
    expect(list.map((f) => f.data.sequence_number)).toEqual(list.map((_, i) => i));
  });

  test("event payloads carry the fields clients read", async () => {
    const list = await frames(TOOL_TURN);
    const created = list[0]?.data.response as Record<string, unknown>;
    expect(created).toMatchObject({ id: "gen-1", object: "response", status: "in_progress", output: [], usage: null, created_at: 1_700_000_000, model: "openai/gpt-5" });
    expect(list[2]?.data.item).toEqual({ id: "rs_abc", type: "reasoning", summary: [] });
    expect(list[8]?.data.item).toEqual({ id: "rs_abc", type: "reasoning", summary: [{ type: "summary_text", text: "Need both cities." }], encrypted_content: "gAAAAenc", format: "openai-responses-v1" });
    expect(list[9]?.data.item).toEqual({ id: "msg_gw_gen-1_1", type: "message", role: "assistant", status: "in_progress", content: [] });
    expect(list[10]?.data.part).toEqual({ type: "output_text", text: "", annotations: [], logprobs: [] });
    expect(list[11]?.data).toEqual({ type: "response.output_text.delta", item_id: "msg_gw_gen-1_1", output_index: 1, content_index: 0, delta: "Checking ", logprobs: [], sequence_number: 11 });
    expect(list[13]?.data).toMatchObject({ text: "Checking weather.", logprobs: [] });
    expect(list[16]?.data.item).toEqual({ id: "fc_1", type: "function_call", call_id: "call_1", name: "get_weather", arguments: "", status: "in_progress" });
    expect(list[17]?.data).toEqual({ type: "response.function_call_arguments.delta", item_id: "fc_1", output_index: 2, delta: '{"city":', sequence_number: 17 });
    expect(list[19]?.data).toMatchObject({ arguments: '{"city":"Paris"}' });
    expect(list[20]?.data.item).toEqual({ id: "fc_1", type: "function_call", call_id: "call_1", name: "get_weather", arguments: '{"city":"Paris"}', status: "completed" });
    const completed = list.at(-1)?.data.response as Record<string, unknown>;
    expect(completed).toMatchObject({ id: "gen-1", status: "completed", incomplete_details: null, error: null });
    expect(completed.usage).toEqual({
      input_tokens: 120,
      input_tokens_details: { cached_tokens: 64 },
      output_tokens: 48,
      output_tokens_details: { reasoning_tokens: 16 },
      total_tokens: 168,
      cost: 0.0012,
      cost_details: { upstream_inference_cost: 0.001, upstream_inference_input_cost: 0.0004, upstream_inference_output_cost: 0.0008 },
    });
    expect((completed.output as unknown[]).length).toBe(4);
  });

  test("every frame has the event line before data", async () => {
    const raw = await drain(streamResponses(replay(TOOL_TURN), context({ stream: true })));
    expect(raw[0]?.startsWith("event: response.created\ndata: {")).toBe(true);
    expect(raw.at(-1)).toBe("data: [DONE]\n\n");
  });

  const THINKING: StreamEvent[] = [
    { type: "start", id: "r", model: "m", provider: "p", created: 1 },
    { type: "reasoning-start", id: "r1" },
    { type: "reasoning-delta", id: "r1", delta: "think" },
    { type: "reasoning-end", id: "r1", signature: "sig" },
    { type: "finish", finish: { reason: "stop" } },
  ];

  test("reasoning text, no summary asked for: reasoning_text events under content part 0 only, as OpenAI streams it", async () => {
    const list = await frames(THINKING);
    expect(outline(list).slice(2)).toEqual([
      "response.output_item.added@0",
      "response.content_part.added@0/0",
      "response.reasoning_text.delta@0/0",
      "response.reasoning_text.done@0/0",
      "response.content_part.done@0/0",
      "response.output_item.done@0",
      "response.completed",
    ]);
    expect(list[3]?.data.part).toEqual({ type: "reasoning_text", text: "" });
    expect(list[4]?.data.delta).toBe("think");
    expect(list[7]?.data.item).toEqual({ id: "rs_gw_gen-1_0", type: "reasoning", summary: [], content: [{ type: "reasoning_text", text: "think" }], signature: "sig" });
  });

  test("reasoning text, a summary asked for (reasoning.summary): the text is streamed as the summary, not as content too", async () => {
    const list = await frames(THINKING, { reasoning: { summary: "auto" } });
    expect(outline(list).slice(2)).toEqual([
      "response.output_item.added@0",
      "response.reasoning_summary_part.added@0#0",
      "response.reasoning_summary_text.delta@0#0",
      "response.reasoning_summary_text.done@0#0",
      "response.reasoning_summary_part.done@0#0",
      "response.output_item.done@0",
      "response.completed",
    ]);
    expect(list[4]?.data.delta).toBe("think");
    expect(list[6]?.data.part).toEqual({ type: "summary_text", text: "think" });
    expect(list[7]?.data.item).toEqual({ id: "rs_gw_gen-1_0", type: "reasoning", summary: [{ type: "summary_text", text: "think" }], signature: "sig" });
  });

  test("a summary of the upstream's own and text: each once, in its own place, asked for or not", async () => {
    const events: StreamEvent[] = [
      { type: "start", id: "r", model: "m", provider: "p", created: 1 },
      { type: "reasoning-start", id: "r1" },
      { type: "reasoning-delta", id: "r1", delta: "Short.", kind: "summary" },
      { type: "reasoning-delta", id: "r1", delta: "long thinking" },
      { type: "reasoning-end", id: "r1" },
      { type: "finish", finish: { reason: "stop" } },
    ];
    for (const body of [{}, { reasoning: { summary: "detailed" } }]) {
      const list = await frames(events, body);
      const summary = list.filter((f) => f.data.type === "response.reasoning_summary_text.delta").map((f) => f.data.delta);
      const text = list.filter((f) => f.data.type === "response.reasoning_text.delta").map((f) => f.data.delta);
      expect({ summary, text }).toEqual({ summary: ["Short."], text: ["long thinking"] });
      const done = list.find((f) => f.data.type === "response.output_item.done")!;
      expect(done.data.item).toEqual({ id: "rs_gw_gen-1_0", type: "reasoning", summary: [{ type: "summary_text", text: "Short." }], content: [{ type: "reasoning_text", text: "long thinking" }] });
    }
  });

  test("finish length → message closed incomplete, then response.incomplete", async () => {
    const list = await frames([
      { type: "start", id: "r", model: "m", provider: "p", created: 1 },
      { type: "text-delta", id: "t", delta: "Once upon" },
      { type: "text-end", id: "t" },
      { type: "usage", usage: usage(5, 16) },
      { type: "finish", finish: { reason: "length", raw: "length" } },
    ]);
    expect(outline(list).slice(-3)).toEqual(["response.content_part.done@0/0", "response.output_item.done@0", "response.incomplete"]);
    expect((list.at(-2)?.data.item as Record<string, unknown>).status).toBe("incomplete");
    const response = list.at(-1)?.data.response as Record<string, unknown>;
    expect(response).toMatchObject({ status: "incomplete", incomplete_details: { reason: "max_output_tokens" } });
  });

  test("text without text-end, refusals and a trailing open message are closed before the terminal event", async () => {
    const list = await frames([
      { type: "start", id: "r", model: "m", provider: "p", created: 1 },
      { type: "text-start", id: "a" },
      { type: "text-delta", id: "a", delta: "Hi" },
      { type: "refusal-delta", id: "x", delta: "No" },
      { type: "finish", finish: { reason: "stop" } },
    ]);
    expect(outline(list).slice(2)).toEqual([
      "response.output_item.added@0",
      "response.content_part.added@0/0",
      "response.output_text.delta@0/0",
      "response.content_part.added@0/1",
      "response.refusal.delta@0/1",
      "response.output_text.done@0/0",
      "response.content_part.done@0/0",
      "response.refusal.done@0/1",
      "response.content_part.done@0/1",
      "response.output_item.done@0",
      "response.completed",
    ]);
  });

  test("annotations at text-end are announced before output_text.done", async () => {
    const annotation = { type: "url_citation", url: "https://x.test", start_index: 0, end_index: 2, title: "x" };
    const list = await frames([
      { type: "start", id: "r", model: "m", provider: "p", created: 1 },
      { type: "text-delta", id: "a", delta: "Hi" },
      { type: "text-end", id: "a", annotations: [annotation] },
      { type: "finish", finish: { reason: "stop" } },
    ]);
    const added = list.find((f) => f.event === "response.output_text.annotation.added");
    expect(added?.data).toMatchObject({ annotation_index: 0, annotation, content_index: 0, output_index: 0 });
    const done = list.find((f) => f.event === "response.content_part.done");
    expect(done?.data.part).toEqual({ type: "output_text", text: "Hi", annotations: [annotation] });
  });

  test("an error mid-stream → response.failed with error and error_type, then [DONE]; nothing after", async () => {
    const list = await frames([
      { type: "start", id: "r", model: "m", provider: "p", created: 1 },
      { type: "text-delta", id: "a", delta: "Hel" },
      { type: "error", error: new GatewayError("provider_overloaded", "Provider returned error", { metadata: { provider_code: 529 } }) },
      { type: "text-delta", id: "a", delta: "never sent" },
    ]);
    const last = list.at(-1)?.data as Record<string, unknown>;
    expect(last.type).toBe("response.failed");
    expect(last.error_type).toBe("provider_overloaded");
    const response = last.response as Record<string, unknown>;
    expect(response).toMatchObject({ status: "failed", error_type: "provider_overloaded", error: { code: "server_error", message: "Provider returned error", metadata: { provider_code: 529, error_type: "provider_overloaded" } } });
    expect(response.output).toEqual([{ id: "msg_gw_gen-1_0", type: "message", role: "assistant", status: "incomplete", content: [{ type: "output_text", text: "Hel", annotations: [] }] }]);
    expect(list.filter((f) => f.event === "response.output_text.delta")).toHaveLength(1);
  });

  test("an error before start still opens the response first (clients need response.created)", async () => {
    const list = await frames([{ type: "error", error: new GatewayError("timeout", "Upstream timed out") }]);
    expect(outline(list)).toEqual(["response.created", "response.in_progress", "response.failed"]);
  });

  test("a source that throws or ends without finish ends with response.failed, never silently", async () => {
    async function* throwing(): AsyncGenerator<StreamEvent> {
      yield { type: "start", id: "r", model: "m", provider: "p", created: 1 };
      throw new Error("socket closed");
    }
    const thrown = parseFrames(await drain(streamResponses(throwing(), context({ stream: true }))));
    expect(thrown.at(-1)?.data.error_type).toBe("server");
    const cut = await frames([{ type: "start", id: "r", model: "m", provider: "p", created: 1 }, { type: "text-delta", id: "a", delta: "x" }]);
    expect(cut.at(-1)?.data).toMatchObject({ type: "response.failed", error_type: "provider_unavailable" });
  });

  test("the debug echo is the first frame; sequence numbers still start at 0 and increase", async () => {
    const list = await frames([{ type: "debug", upstreamBody: { model: "gpt-5", input: [] } }, ...TOOL_TURN]);
    expect(list[0]?.data).toEqual({ type: "response.debug", debug: { echo_upstream_body: { model: "gpt-5", input: [] } }, sequence_number: 0 });
    expect(list[1]?.event).toBe("response.created");
    expect(list.map((f) => f.data.sequence_number)).toEqual(list.map((_, i) => i));
  });

  test("service_metadata rides on the terminal event only when opted in", async () => {
    const withMeta = await frames(TOOL_TURN, {}, { attempt: 1 });
    expect((withMeta.at(-1)?.data.response as Record<string, unknown>).service_metadata).toEqual({ attempt: 1 });
    expect((withMeta[0]?.data.response as Record<string, unknown>).service_metadata).toBeUndefined();
    const without = await frames(TOOL_TURN);
    expect(without.at(-1)?.data.response).not.toHaveProperty("service_metadata");
  });

  test("stops pulling the source after an error event (so the upstream is released)", async () => {
    let pulled = 0;
    async function* source(): AsyncGenerator<StreamEvent> {
      const events: StreamEvent[] = [
        { type: "start", id: "r", model: "m", provider: "p", created: 1 },
        { type: "error", error: new GatewayError("server", "x") },
        { type: "text-delta", id: "a", delta: "late" },
      ];
      for (const event of events) {
        pulled++;
        yield event;
      }
    }
    await drain(streamResponses(source(), context({ stream: true })));
    expect(pulled).toBe(2);
  });
});
