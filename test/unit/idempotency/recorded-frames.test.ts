/**
 * The recording observes the frames its client pulls and reads nothing ahead of it; once the client is gone it reads
 * the rest for the retries, but only up to the cap, then lets the source go.
 */
import { expect, test } from "bun:test";
import { RecordedFrames } from "../../../core/idempotency/recorded-frames.ts";
import { Recording } from "../../../core/idempotency/recording.ts";

/** `count` frames of `size` bytes, counting those produced and whether the source was let go. */
function source(count: number, size = 10) {
  const state = { produced: 0, released: false };
  async function* frames() {
    try {
      for (let i = 0; i < count; i++) {
        await Bun.sleep(0);
        state.produced++;
        yield String(i % 10).repeat(size);
      }
    } finally {
      state.released = true;
    }
  }
  return { frames: frames(), state };
}

test("frames are recorded as the client pulls them, and none is produced ahead of it", async () => {
  const { frames, state } = source(100);
  const recording = new Recording(1_000_000);
  const iterator = new RecordedFrames(frames, recording)[Symbol.asyncIterator]();
  expect((await iterator.next()).value).toBe("0".repeat(10));
  expect((await iterator.next()).value).toBe("1".repeat(10));
  await Bun.sleep(20);
  expect(state.produced).toBe(2);
  const reader = new Response(recording.reader()).text();
  for (let result = await iterator.next(); !result.done; result = await iterator.next());
  expect(recording.whole).toBe(true);
  expect((await reader).length).toBe(1_000);
});

test("a client that goes under the cap: the rest is read and kept whole", async () => {
  const { frames, state } = source(50);
  const recording = new Recording(1_000_000);
  const iterator = new RecordedFrames(frames, recording)[Symbol.asyncIterator]();
  await iterator.next();
  await iterator.return!();
  await recording.finished;
  expect(state.produced).toBe(50);
  expect(recording.kept()?.length).toBe(500);
});

test("a client that goes past the cap: reading stops at the cap and the source is let go", async () => {
  const { frames, state } = source(10_000);
  const recording = new Recording(1_000);
  const iterator = new RecordedFrames(frames, recording)[Symbol.asyncIterator]();
  await iterator.next();
  await iterator.return!();
  await recording.finished;
  while (!state.released) await Bun.sleep(1);
  // 100 frames fit the cap, the 101st passes it.
  expect(state.produced).toBe(101);
  expect(recording.kept()).toBeUndefined();
});

test("a client that leaves while its pull is pending: no frame is lost or read twice", async () => {
  const { frames } = source(30);
  const recording = new Recording(1_000_000);
  const recorded = new RecordedFrames(frames, recording);
  const pending = recorded.next();
  recorded.leave();
  await pending;
  await recording.finished;
  expect(recording.kept()).toBe(Array.from({ length: 30 }, (_, i) => String(i % 10).repeat(10)).join(""));
});

test("a source that throws ends the recording, not whole", async () => {
  async function* broken() {
    yield "a";
    throw new Error("gone");
  }
  const recording = new Recording(1_000);
  const iterator = new RecordedFrames(broken(), recording)[Symbol.asyncIterator]();
  await iterator.next();
  await expect(iterator.next()).rejects.toThrow("gone");
  await recording.finished;
  expect(recording.whole).toBe(false);
});
