/**
 * core/formats/chat/stream-encoder.ts `textChunkJson`: the prebuilt frame of a plain text delta is byte for byte what
 * the canonical path (`handle` then `JSON.stringify`) makes of the same events, whatever the identity fields and the
 * text hold; any other event, and a text delta that is not plain, is left to `handle`.
 */
import { describe, expect, test } from "bun:test";
import { chunkFrame, streamChat } from "../../../../core/formats/chat/stream.ts";
import { ChatStreamEncoder } from "../../../../core/formats/chat/stream-encoder.ts";
import type { EncodeContext } from "../../../../core/formats/format.ts";
import type { StreamEvent } from "../../../../core/model/events.ts";
import { chatContext, drain, replay } from "./helpers.ts";

/** The frames of the canonical path alone: every event through `handle`. */
function canonicalFrames(events: readonly StreamEvent[], ctx: EncodeContext): string[] {
  const encoder = new ChatStreamEncoder(ctx);
  const frames: string[] = [];
  for (const event of events) for (const chunk of encoder.handle(event)) frames.push(chunkFrame(chunk));
  for (const chunk of encoder.end()) frames.push(chunkFrame(chunk));
  frames.push("data: [DONE]\n\n");
  return frames;
}

const tricky = ['quote " and \\ backslash', "line\nbreak\ttab", "émoji 🎉 and \u2028 separator", "\u0000 control", "<script>"];

function streamOf(start: StreamEvent, texts: readonly string[], extra: StreamEvent[] = []): StreamEvent[] {
  return [
    start,
    { type: "text-start", id: "t1" },
    ...texts.map((delta): StreamEvent => ({ type: "text-delta", id: "t1", delta })),
    ...extra,
    { type: "text-end", id: "t1" },
    { type: "usage", usage: { input: { total: 3, cacheRead: 0, cacheWrite: 0 }, output: { total: 7, reasoning: 0 } } },
    { type: "finish", finish: { reason: "stop", raw: "stop" } },
  ];
}

describe("chat stream: prebuilt text frames", () => {
  const starts: StreamEvent[] = [
    { type: "start", id: "up-1", model: "openai/gpt-4o", provider: "OpenAI", created: 1_750_000_000 },
    { type: "start", id: "up-2", model: 'we"ird\\model/ü', provider: "Pro\nvider", created: 0, serviceTier: "flex" },
    { type: "start", id: "", model: "", provider: "", created: 1.5 },
  ];
  for (const [i, start] of starts.entries()) {
    for (const includeUsage of [true, false]) {
      test(`start #${i}, include_usage ${includeUsage}: the same bytes as the canonical path`, async () => {
        const events = streamOf(start, ["first", ...tricky, "", "last"]);
        const ctx = chatContext({ includeUsage });
        const fast = await drain(streamChat(replay(events), ctx));
        expect(fast).toEqual(canonicalFrames(events, chatContext({ includeUsage })));
        // Every non-empty text delta took the prebuilt frame (the start's chunk announced the role).
        const encoder = new ChatStreamEncoder(chatContext({ includeUsage }));
        let prebuilt = 0;
        for (const event of events) {
          if (encoder.textChunkJson(event) !== undefined) prebuilt++;
          else encoder.handle(event);
        }
        expect(prebuilt).toBe(2 + tricky.length);
      });
    }
  }

  test("a second start (a new identity) rebuilds the prefix", async () => {
    const first = starts[0]!;
    const events = [...streamOf(first, ["a", "b"]).slice(0, 4), { ...starts[1]!, type: "start" } as StreamEvent, { type: "text-delta", id: "t1", delta: "c" } as StreamEvent];
    const ctx = chatContext({ includeUsage: true });
    expect(await drain(streamChat(replay(events), ctx))).toEqual(canonicalFrames(events, chatContext({ includeUsage: true })));
  });

  test("text deltas with logprobs, before the role went out, or empty, are left to handle", () => {
    const encoder = new ChatStreamEncoder(chatContext());
    const plain: StreamEvent = { type: "text-delta", id: "t1", delta: "x" };
    expect(encoder.textChunkJson(plain)).toBeUndefined(); // the role is not sent yet
    encoder.handle(starts[0]!);
    expect(encoder.textChunkJson({ type: "text-delta", id: "t1", delta: "" })).toBeUndefined();
    expect(encoder.textChunkJson({ type: "text-delta", id: "t1", delta: "x", logprobs: [{ token: "x", logprob: -0.1, bytes: null, top_logprobs: [] }] })).toBeUndefined();
    expect(encoder.textChunkJson({ type: "reasoning-delta", id: "r1", delta: "x" })).toBeUndefined();
    const twin = new ChatStreamEncoder(chatContext());
    twin.handle(starts[0]!);
    expect(encoder.textChunkJson(plain)).toBe(JSON.stringify(twin.handle(plain)[0]));
  });

  test("every UTF-16 code unit, alone and in text, writes as JSON.stringify writes it", () => {
    const fast = new ChatStreamEncoder(chatContext());
    const canonical = new ChatStreamEncoder(chatContext());
    fast.handle(starts[0]!);
    canonical.handle(starts[0]!);
    const mismatches: number[] = [];
    for (let code = 0; code < 0x10000; code++) {
      const event: StreamEvent = { type: "text-delta", id: "t1", delta: `a${String.fromCharCode(code)}b` };
      if (fast.textChunkJson(event) !== JSON.stringify(canonical.handle(event)[0])) mismatches.push(code);
    }
    expect(mismatches).toEqual([]);
  });

  test("logprobs and annotations in the stream keep their bytes too", async () => {
    const extra: StreamEvent[] = [{ type: "text-delta", id: "t1", delta: "lp", logprobs: [{ token: "lp", logprob: -0.5, bytes: [108, 112], top_logprobs: [] }] }];
    const events = streamOf(starts[0]!, ["a", "b"], extra);
    expect(await drain(streamChat(replay(events), chatContext({ includeUsage: true })))).toEqual(canonicalFrames(events, chatContext({ includeUsage: true })));
  });
});
