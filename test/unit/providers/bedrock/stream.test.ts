/**
 * providers/bedrock/event-stream.ts and stream.ts: ConverseStream's binary event stream → canonical events, with the
 * bytes cut anywhere, exception frames in the middle, and streams that end early or arrive garbled.
 */
import { describe, expect, test } from "bun:test";
import type { StreamEvent } from "../../../../core/model/events.ts";
import { FramingError, readEventStream } from "../../../../providers/bedrock/event-stream.ts";
import { converseStreamToEvents } from "../../../../providers/bedrock/stream.ts";
import { encodeBedrockFrame, encodeBedrockFrames, type BedrockFrame } from "../../../support/fake-bedrock/event-stream.ts";
import { canonicalRequest, drain, providerCall, streamOf } from "../helpers.ts";
import { CLAUDE, endpointFor, OLD_CLAUDE } from "./support.ts";

const call = providerCall({ request: canonicalRequest({ stream: true }) });

const frames: BedrockFrame[] = [
  { event: "messageStart", data: { role: "assistant", p: "abcdefghij" } },
  { event: "contentBlockDelta", data: { contentBlockIndex: 0, delta: { reasoningContent: { text: "The user wants " } }, p: "ab" } },
  { event: "contentBlockDelta", data: { contentBlockIndex: 0, delta: { reasoningContent: { text: "the weather." } } } },
  { event: "contentBlockDelta", data: { contentBlockIndex: 0, delta: { reasoningContent: { signature: "EqQBSig" } } } },
  { event: "contentBlockStop", data: { contentBlockIndex: 0 } },
  { event: "contentBlockDelta", data: { contentBlockIndex: 1, delta: { text: "Let me check." } } },
  { event: "contentBlockStop", data: { contentBlockIndex: 1 } },
  { event: "contentBlockStart", data: { contentBlockIndex: 2, start: { toolUse: { toolUseId: "tooluse_abc", name: "get_weather" } } } },
  { event: "contentBlockDelta", data: { contentBlockIndex: 2, delta: { toolUse: { input: '{"city":' } } } },
  { event: "contentBlockDelta", data: { contentBlockIndex: 2, delta: { toolUse: { input: '"Paris"}' } } } },
  { event: "contentBlockStop", data: { contentBlockIndex: 2 } },
  { event: "messageStop", data: { stopReason: "tool_use" } },
  { event: "metadata", data: { usage: { inputTokens: 100, outputTokens: 40, totalTokens: 1140, cacheReadInputTokens: 1000 }, metrics: { latencyMs: 900 } } },
];

const expected: StreamEvent[] = [
  { type: "start", id: "req-1", model: "upstream-model", provider: "test-provider", created: 1_700_000_000 },
  { type: "reasoning-start", id: "reasoning-0", format: "anthropic-claude-v1" },
  { type: "reasoning-delta", id: "reasoning-0", delta: "The user wants " },
  { type: "reasoning-delta", id: "reasoning-0", delta: "the weather." },
  { type: "reasoning-end", id: "reasoning-0", signature: "EqQBSig" },
  { type: "text-start", id: "text-1" },
  { type: "text-delta", id: "text-1", delta: "Let me check." },
  { type: "text-end", id: "text-1" },
  { type: "tool-call-start", id: "tooluse_abc", name: "get_weather" },
  { type: "tool-call-delta", id: "tooluse_abc", delta: '{"city":' },
  { type: "tool-call-delta", id: "tooluse_abc", delta: '"Paris"}' },
  { type: "tool-call-end", id: "tooluse_abc" },
  {
    type: "usage",
    usage: {
      input: { total: 1100, cacheRead: 1000, cacheWrite: 0 },
      output: { total: 40, reasoning: 0 },
      raw: { inputTokens: 100, outputTokens: 40, totalTokens: 1140, cacheReadInputTokens: 1000 },
    },
  },
  { type: "finish", finish: { reason: "tool_calls", raw: "tool_use" } },
];

function bytesOf(list: BedrockFrame[]): Uint8Array {
  return Buffer.concat(encodeBedrockFrames(list));
}

async function translate(chunks: Uint8Array[], model = CLAUDE, request = call): Promise<StreamEvent[]> {
  return drain(converseStreamToEvents(readEventStream(streamOf(chunks)), request, endpointFor(model), "req-1"));
}

describe("a whole stream", () => {
  test("one message per chunk", async () => {
    expect(await translate(encodeBedrockFrames(frames))).toEqual(expected);
  });

  test("the same bytes cut at every size: messages split over chunks, several in one, preludes cut", async () => {
    const bytes = bytesOf(frames);
    for (const size of [1, 3, 7, 64, 333, bytes.byteLength]) {
      const chunks: Uint8Array[] = [];
      for (let i = 0; i < bytes.byteLength; i += size) chunks.push(bytes.subarray(i, i + size));
      expect(await translate(chunks)).toEqual(expected);
    }
  });

  test("redacted reasoning ends its block with the redacted content", async () => {
    const events = await translate(
      encodeBedrockFrames([
        { event: "contentBlockDelta", data: { contentBlockIndex: 0, delta: { reasoningContent: { redactedContent: "EmwKAhgB" } } } },
        { event: "contentBlockStop", data: { contentBlockIndex: 0 } },
        { event: "messageStop", data: { stopReason: "end_turn" } },
      ]),
    );
    expect(events.filter((e) => e.type.startsWith("reasoning"))).toEqual([
      { type: "reasoning-start", id: "reasoning-0", format: "anthropic-claude-v1" },
      { type: "reasoning-end", id: "reasoning-0", redacted: "EmwKAhgB" },
    ]);
    // No metadata after messageStop: the finish comes when the body ends.
    expect(events.at(-1)).toEqual({ type: "finish", finish: { reason: "stop", raw: "end_turn" } });
  });

  test("the forced JSON answer's tool input is relayed as the answer's text, finishing with stop", async () => {
    const jsonCall = providerCall({ request: canonicalRequest({ stream: true, output: { format: { type: "json_schema", name: "w", schema: { type: "object" } } } }) });
    const events = await translate(
      encodeBedrockFrames([
        { event: "contentBlockStart", data: { contentBlockIndex: 0, start: { toolUse: { toolUseId: "tooluse_x", name: "json_answer" } } } },
        { event: "contentBlockDelta", data: { contentBlockIndex: 0, delta: { toolUse: { input: '{"city":"Paris"}' } } } },
        { event: "contentBlockStop", data: { contentBlockIndex: 0 } },
        { event: "messageStop", data: { stopReason: "tool_use" } },
      ]),
      OLD_CLAUDE,
      jsonCall,
    );
    expect(events.slice(1)).toEqual([
      { type: "text-start", id: "text-0" },
      { type: "text-delta", id: "text-0", delta: '{"city":"Paris"}' },
      { type: "text-end", id: "text-0" },
      { type: "finish", finish: { reason: "stop", raw: "end_turn" } },
    ]);
  });
});

describe("failures", () => {
  test("a throttling exception frame after output: the text, then a retryable 429", async () => {
    const events = await translate(
      encodeBedrockFrames([frames[0]!, frames[5]!, { event: "throttlingException", data: { message: "Too many tokens, please wait before trying again." } }]),
    );
    const last = events.at(-1) as Extract<StreamEvent, { type: "error" }>;
    expect(events.map((e) => e.type)).toEqual(["start", "text-start", "text-delta", "error"]);
    expect([last.error.type, last.error.status, last.error.retryable, last.error.message]).toEqual(["rate_limit_exceeded", 429, true, "Too many tokens, please wait before trying again."]);
  });

  test.each([
    ["modelStreamErrorException", "provider_unavailable", 502],
    ["internalServerException", "provider_unavailable", 502],
    ["serviceUnavailableException", "provider_unavailable", 502],
    ["validationException", "invalid_request", 400],
  ])("%s → %s %d", async (name, type, status) => {
    const events = await translate(encodeBedrockFrames([frames[0]!, { event: name, data: { message: "it failed" } }]));
    const last = events.at(-1) as Extract<StreamEvent, { type: "error" }>;
    expect([last.error.type as string, last.error.status]).toEqual([type, status]);
  });

  test("a stream cut before messageStop ends in a retryable 502, never a silent truncation", async () => {
    const events = await translate(encodeBedrockFrames(frames.slice(0, 7)));
    const last = events.at(-1) as Extract<StreamEvent, { type: "error" }>;
    expect([last.type, last.error.status, last.error.retryable]).toEqual(["error", 502, true]);
    expect(last.error.metadata).toEqual({ provider_code: "stream_interrupted" });
  });

  test("a message cut in the middle, or one whose checksum is wrong, is a garbled stream", async () => {
    const whole = encodeBedrockFrame(frames[5]!);
    const cut = await translate([encodeBedrockFrame(frames[0]!), whole.subarray(0, whole.byteLength - 3)]);
    expect((cut.at(-1) as Extract<StreamEvent, { type: "error" }>).error.metadata).toEqual({ provider_code: "stream_interrupted" });
    const corrupt = Uint8Array.from(whole);
    corrupt[corrupt.byteLength - 10] = (corrupt[corrupt.byteLength - 10]! + 1) % 256;
    const bad = await translate([encodeBedrockFrame(frames[0]!), corrupt]);
    expect(bad.map((e) => e.type)).toEqual(["start", "error"]);
  });

  test("a length beyond AWS's cap is refused before anything is allocated", async () => {
    const huge = new Uint8Array(16);
    new DataView(huge.buffer).setUint32(0, 0x7fffffff, false);
    await expect(drain(readEventStream(streamOf([huge])))).rejects.toBeInstanceOf(FramingError);
  });

  test("an empty body is an interrupted stream", async () => {
    const events = await translate([]);
    expect(events.map((e) => e.type)).toEqual(["start", "error"]);
  });
});
