/** Audio output in the canonical model: base64 pieces joined, pieces collected into one part, parts replayed. */
import { describe, expect, test } from "bun:test";
import { joinBase64, mergeAudio } from "../../../core/model/audio.ts";
import { collect } from "../../../core/model/collect.ts";
import type { StreamEvent } from "../../../core/model/events.ts";
import { eventsFromResponse } from "../../../core/model/replay.ts";

const b64 = (...bytes: number[]) => Buffer.from(bytes).toString("base64");

async function* of(events: StreamEvent[]): AsyncGenerator<StreamEvent> {
  yield* events;
}

describe("joinBase64", () => {
  test("unpadded pieces concatenate; a padded one is re-encoded with the next; empty sides vanish", () => {
    expect(joinBase64(b64(1, 2, 3), b64(4))).toBe(b64(1, 2, 3, 4));
    expect(joinBase64(b64(1, 2), b64(3, 4, 5))).toBe(b64(1, 2, 3, 4, 5));
    expect(joinBase64(b64(1), b64(2))).toBe(b64(1, 2));
    expect(joinBase64("", b64(7))).toBe(b64(7));
    expect(joinBase64(b64(7), "")).toBe(b64(7));
  });
});

describe("mergeAudio", () => {
  test("bytes and transcripts in order, the last id / expiry / format", () => {
    const merged = mergeAudio([
      { type: "audio", data: b64(1), transcript: "Hello ", id: "a1", format: "wav" },
      { type: "audio", data: b64(2, 3), transcript: "again.", id: "a2", expiresAt: 9 },
    ]);
    expect(merged).toEqual({ type: "audio", data: b64(1, 2, 3), transcript: "Hello again.", id: "a2", format: "wav", expiresAt: 9 });
    expect(mergeAudio([])).toBeUndefined();
  });
});

describe("collect and replay", () => {
  const start: StreamEvent = { type: "start", id: "r", model: "m", provider: "p", created: 1 };
  const end: StreamEvent[] = [{ type: "usage", usage: { input: { total: 1, cacheRead: 0, cacheWrite: 0 }, output: { total: 1, reasoning: 0 } } }, { type: "finish", finish: { reason: "stop" } }];

  test("pieces with one id become one audio part; the fields sent once are kept", async () => {
    const response = await collect(
      of([
        start,
        { type: "audio", id: "audio_0", audioId: "audio_x", transcript: "Hi " },
        { type: "audio", id: "audio_0", data: b64(1) },
        { type: "text-start", id: "t" },
        { type: "text-delta", id: "t", delta: "between" },
        { type: "text-end", id: "t" },
        { type: "audio", id: "audio_0", data: b64(2, 3), transcript: "there" },
        { type: "audio", id: "audio_0", expiresAt: 42, format: "wav" },
        ...end,
      ]),
    );
    expect(response.parts).toEqual([
      { type: "audio", data: b64(1, 2, 3), transcript: "Hi there", id: "audio_x", expiresAt: 42, format: "wav" },
      { type: "text", text: "between" },
    ]);
  });

  test("replayed, an audio part is one whole piece that collects back to the same part", async () => {
    const part = { type: "audio" as const, data: b64(5, 6), transcript: "t", id: "audio_y", expiresAt: 3, format: "mp3" };
    const response = await collect(of([start, { type: "audio", id: "a", data: part.data, transcript: "t", audioId: "audio_y", expiresAt: 3, format: "mp3" }, ...end]));
    const again = await collect(eventsFromResponse(response));
    expect(again.parts).toEqual([part]);
  });
});
