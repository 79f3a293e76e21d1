/** streamChat: canonical events → chat.completion.chunk SSE frames. */
import { describe, expect, test } from "bun:test";
import { GatewayError } from "../../../../core/errors.ts";
import type { ChatChunk, ChatDelta } from "../../../../core/formats/chat/chunk.ts";
import type { ChatFinishReason } from "../../../../core/formats/chat/finish.ts";
import { streamChat } from "../../../../core/formats/chat/stream.ts";
import type { StreamEvent } from "../../../../core/model/events.ts";
import type { Usage } from "../../../../core/model/usage.ts";
import { chatContext, drain, parseFrames, reassemble, replay } from "./helpers.ts";

const start: StreamEvent = { type: "start", id: "up-1", model: "openai/gpt-4o", provider: "OpenAI", created: 1_750_000_000 };
const usage: Usage = { input: { total: 10, cacheRead: 2, cacheWrite: 0 }, output: { total: 5, reasoning: 0 } };
const cost = { total: 0.001, input: 0.0006, output: 0.0004, upstream: 0.001 };
const base: Omit<ChatChunk, "choices"> = {
  id: "gen-123",
  object: "chat.completion.chunk",
  created: 1_750_000_000,
  model: "openai/gpt-4o",
  provider: "OpenAI",
  service_tier: null,
};
const choice = (delta: ChatDelta, finish: ChatFinishReason | null = null, native: string | null = null): ChatChunk => ({
  ...base,
  choices: [{ index: 0, delta, logprobs: null, finish_reason: finish, native_finish_reason: native }],
});
const textStream: StreamEvent[] = [
  start,
  { type: "text-start", id: "t1" },
  { type: "text-delta", id: "t1", delta: "Hel" },
  { type: "text-delta", id: "t1", delta: "lo" },
  { type: "text-end", id: "t1" },
  { type: "usage", usage, cost },
  { type: "finish", finish: { reason: "stop", raw: "stop" } },
];

/** `usage` of the text stream, as chat shows it. */
const textUsage = {
  prompt_tokens: 10,
  completion_tokens: 5,
  total_tokens: 15,
  prompt_tokens_details: { cached_tokens: 2, cache_write_tokens: 0, audio_tokens: 0, file_tokens: 0, video_tokens: 0 },
  completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, image_tokens: 0 },
  cost: 0.001,
  cost_details: { upstream_inference_cost: 0.001, upstream_inference_prompt_cost: 0.0006, upstream_inference_completions_cost: 0.0004 },
};

/** A chunk without the usage a finish chunk carries when include_usage is off (for tests about other fields). */
function withoutUsage(chunk: ChatChunk | undefined): Omit<ChatChunk, "usage"> | undefined {
  if (chunk === undefined) return undefined;
  const { usage: _usage, ...rest } = chunk;
  return rest;
}

async function chunksOf(events: StreamEvent[], options: Parameters<typeof chatContext>[0] = {}) {
  return parseFrames(await drain(streamChat(replay(events), chatContext(options))));
}

describe("streamChat", () => {
  test("exact chunk sequence of a text reply with include_usage", async () => {
    expect(await chunksOf(textStream, { includeUsage: true })).toEqual([
      choice({ role: "assistant" }),
      choice({ content: "Hel" }),
      choice({ content: "lo" }),
      choice({}, "stop", "stop"),
      {
        ...base,
        choices: [],
        usage: textUsage,
      },
    ]);
  });

  test("without include_usage the usage rides on the finish chunk, which is last before [DONE]", async () => {
    const chunks = await chunksOf(textStream, { includeUsage: false });
    expect(chunks.at(-1)).toEqual({ ...choice({}, "stop", "stop"), usage: textUsage });
    // No extra empty-`choices` chunk, which older clients index into.
    expect(chunks.every((chunk) => chunk.choices.length === 1)).toBe(true);
    expect(chunks.filter((chunk) => "usage" in chunk)).toHaveLength(1);
    expect(await chunksOf(textStream)).toEqual(chunks);
  });

  test("service_metadata rides on the final chunk only", async () => {
    const metadata = { attempt: 1, strategy: "direct" };
    const withUsage = await chunksOf(textStream, { includeUsage: true, metadata });
    expect(withUsage.map((chunk) => chunk.service_metadata)).toEqual([undefined, undefined, undefined, undefined, metadata]);
    const withoutUsage = await chunksOf(textStream, { includeUsage: false, metadata });
    expect(withoutUsage.map((chunk) => chunk.service_metadata)).toEqual([undefined, undefined, undefined, metadata]);
  });

  test("tool calls: index owned by the encoder, arguments split across deltas reassemble", async () => {
    const events: StreamEvent[] = [
      start,
      { type: "tool-call-start", id: "call_a", name: "get_weather" },
      { type: "tool-call-delta", id: "call_a", delta: '{"ci' },
      { type: "tool-call-start", id: "call_b", name: "get_time" },
      { type: "tool-call-delta", id: "call_a", delta: 'ty":"Par' },
      { type: "tool-call-delta", id: "call_b", delta: '{"tz":"CET"}' },
      { type: "tool-call-delta", id: "call_a", delta: 'is"}' },
      { type: "tool-call-end", id: "call_a" },
      { type: "tool-call-end", id: "call_b" },
      { type: "finish", finish: { reason: "tool_calls", raw: "tool_calls" } },
    ];
    const chunks = await chunksOf(events);
    expect(chunks.slice(1, 4)).toEqual([
      choice({ tool_calls: [{ index: 0, id: "call_a", type: "function", function: { name: "get_weather", arguments: "" } }] }),
      choice({ tool_calls: [{ index: 0, function: { arguments: '{"ci' } }] }),
      choice({ tool_calls: [{ index: 1, id: "call_b", type: "function", function: { name: "get_time", arguments: "" } }] }),
    ]);
    const message = reassemble(chunks).choices[0]?.message;
    expect(message?.content).toBeNull();
    expect(message?.tool_calls).toEqual([
      { id: "call_a", index: 0, type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
      { id: "call_b", index: 1, type: "function", function: { name: "get_time", arguments: '{"tz":"CET"}' } },
    ]);
    expect(reassemble(chunks).choices[0]?.finish_reason).toBe("tool_calls");
  });

  test("reasoning deltas carry reasoning and reasoning_details; the signature arrives at the end", async () => {
    const events: StreamEvent[] = [
      start,
      { type: "reasoning-start", id: "r1", format: "anthropic-claude-v1" },
      { type: "reasoning-delta", id: "r1", delta: "Think" },
      { type: "reasoning-delta", id: "r1", delta: "ing" },
      { type: "reasoning-end", id: "r1", signature: "sig" },
      { type: "finish", finish: { reason: "stop" } },
    ];
    const chunks = await chunksOf(events);
    expect(chunks.slice(1, 4)).toEqual([
      choice({ reasoning: "Think", reasoning_details: [{ type: "reasoning.text", text: "Think", format: "anthropic-claude-v1", index: 0 }] }),
      choice({ reasoning: "ing", reasoning_details: [{ type: "reasoning.text", text: "ing", format: "anthropic-claude-v1", index: 0 }] }),
      choice({ reasoning_details: [{ type: "reasoning.text", text: "", signature: "sig", format: "anthropic-claude-v1", index: 0 }] }),
    ]);
    expect(withoutUsage(chunks.at(-1))).toEqual(choice({}, "stop", null));
  });

  test("an error event mid-stream: error chunk with finish_reason error, then [DONE], nothing after", async () => {
    const events: StreamEvent[] = [
      start,
      { type: "text-delta", id: "t1", delta: "par" },
      { type: "error", error: new GatewayError("provider_overloaded", "Provider returned error", { metadata: { provider_code: "529" } }) },
      { type: "text-delta", id: "t1", delta: "never sent" },
    ];
    const frames = await drain(streamChat(replay(events), chatContext({ includeUsage: true, metadata: { attempt: 1 } })));
    const chunks = parseFrames(frames);
    expect(chunks).toHaveLength(3);
    expect(chunks[2]).toEqual({
      ...choice({}, "error", "error"),
      error: { code: 529, message: "Provider returned error", metadata: { provider_code: "529", error_type: "provider_overloaded" } },
      service_metadata: { attempt: 1 },
    });
  });

  test("a throwing upstream becomes a generic 500 error chunk", async () => {
    async function* failing(): AsyncGenerator<StreamEvent> {
      yield start;
      throw new Error("socket hang up at 10.0.0.3");
    }
    const chunks = parseFrames(await drain(streamChat(failing(), chatContext())));
    expect(chunks.at(-1)).toEqual({
      ...choice({}, "error", "error"),
      error: { code: 500, message: "Internal server error", metadata: { error_type: "server" } },
    });
  });

  test("refusal, annotations, logprobs and the debug echo", async () => {
    const logprob = { token: "No", logprob: -0.2, bytes: [78, 111], top_logprobs: [] };
    const chunks = await chunksOf([
      { type: "debug", upstreamBody: { model: "gpt-4o" } },
      start,
      { type: "text-delta", id: "t1", delta: "No", logprobs: [logprob] },
      { type: "text-end", id: "t1", annotations: [{ type: "url_citation" }] },
      { type: "refusal-delta", id: "x1", delta: "Sorry" },
      { type: "finish", finish: { reason: "refusal", raw: "refusal" } },
    ]);
    expect(chunks[0]).toEqual({ ...base, created: 0, model: "anthropic/claude-sonnet-4", provider: "", choices: [], debug: { echo_upstream_body: { model: "gpt-4o" } } });
    expect(chunks[2]).toEqual({ ...choice({ content: "No" }), choices: [{ index: 0, delta: { content: "No" }, logprobs: { content: [logprob], refusal: null }, finish_reason: null, native_finish_reason: null }] });
    expect(chunks[3]).toEqual(choice({ annotations: [{ type: "url_citation" }] }));
    expect(chunks[4]).toEqual(choice({ refusal: "Sorry" }));
    expect(withoutUsage(chunks[5])).toEqual(choice({}, "content_filter", "refusal"));
  });

  test("without a start event the first content chunk still announces the role", async () => {
    const chunks = await chunksOf([{ type: "text-delta", id: "t1", delta: "x" }]);
    expect(chunks[0]?.choices[0]?.delta).toEqual({ role: "assistant", content: "x" });
  });

  test("relays each event as it arrives (no buffering)", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    async function* slow(): AsyncGenerator<StreamEvent> {
      yield start;
      yield { type: "text-delta", id: "t1", delta: "first" };
      await gate;
      yield { type: "finish", finish: { reason: "stop" } };
    }
    const frames = streamChat(slow(), chatContext())[Symbol.asyncIterator]();
    await frames.next();
    const second = await Promise.race([frames.next(), Bun.sleep(50).then(() => "blocked" as const)]);
    expect(second).not.toBe("blocked");
    expect(JSON.stringify(second)).toContain("first");
    release();
    const rest: string[] = [];
    for (let next = await frames.next(); !next.done; next = await frames.next()) rest.push(next.value);
    expect(rest.at(-1)).toBe("data: [DONE]\n\n");
  });
});
