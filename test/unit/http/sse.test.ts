/** core/http/sse.ts: frames relayed one by one (direct stream, bounded read-ahead), keep-alive on idle streams, cancel reaches the source. */
import { describe, expect, test } from "bun:test";
import { KEEP_ALIVE_COMMENT, openStreamCount, sseResponse } from "../../../core/http/sse.ts";

const decoder = new TextDecoder();
const TIMEOUT: unique symbol = Symbol("timeout");
type Reader = ReadableStreamDefaultReader<Uint8Array>;
/** The body reader of an SSE response. */
const readerOf = (res: Response): Reader => res.body!.getReader() as Reader;

function deferred(): { promise: Promise<void>; release: () => void } {
  let release!: () => void;
  const promise = new Promise<void>((r) => (release = r));
  return { promise, release };
}

/** Reads one chunk, or TIMEOUT if none arrives within `ms` (the read stays pending). */
async function readWithin(reader: Reader, ms: number): Promise<string | null | typeof TIMEOUT> {
  const read = reader.read().then(({ value, done }) => (done ? null : decoder.decode(value)));
  const timeout = Bun.sleep(ms).then((): typeof TIMEOUT => TIMEOUT);
  return Promise.race([read, timeout]);
}

/** A source that counts next() and return() calls; frame i waits for gates[i] when given. */
function controlledSource(frames: string[], gates: Array<Promise<void> | undefined> = []) {
  const stats = { next: 0, returned: 0 };
  const iterable: AsyncIterable<string> = {
    [Symbol.asyncIterator]() {
      let i = 0;
      return {
        async next() {
          stats.next++;
          if (i >= frames.length) return { value: undefined, done: true };
          await gates[i];
          return { value: frames[i++]!, done: false };
        },
        async return() {
          stats.returned++;
          return { value: undefined, done: true };
        },
      };
    },
  };
  return { iterable, stats };
}

describe("sseResponse", () => {
  test("is an event stream with no-buffering headers plus the caller's", () => {
    const res = sseResponse(controlledSource([]).iterable, { keepAliveMs: 15_000, headers: { "x-generation-id": "gen-1" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("no-cache");
    expect(res.headers.get("x-accel-buffering")).toBe("no");
    expect(res.headers.get("x-generation-id")).toBe("gen-1");
    void res.body?.cancel();
  });

  test("relays each frame as it arrives: the first is readable before the second is released", async () => {
    const second = deferred();
    const { iterable, stats } = controlledSource(["data: 1\n\n", "data: 2\n\n"], [undefined, second.promise]);
    const reader = readerOf(sseResponse(iterable, { keepAliveMs: 60_000 }));

    expect(await readWithin(reader, 1000)).toBe("data: 1\n\n");
    // Back-pressure bounds the read-ahead: at most the next frame is being awaited, nothing more is buffered.
    expect(stats.next).toBeLessThanOrEqual(2);

    const pending = reader.read();
    const early = await Promise.race([pending.then(() => "read"), Bun.sleep(50).then(() => "waiting")]);
    expect(early).toBe("waiting"); // the second frame is not there until the source gives it
    second.release();
    const { value } = await pending;
    expect(decoder.decode(value)).toBe("data: 2\n\n");
    expect(await readWithin(reader, 1000)).toBeNull();
  });

  test("frames are never merged or split, whatever their size", async () => {
    const frames = ["data: a\n\n", `data: ${"x".repeat(100_000)}\n\n`, "event: ping\ndata: {}\n\n"];
    const reader = readerOf(sseResponse(controlledSource(frames).iterable, { keepAliveMs: 60_000 }));
    const chunks: string[] = [];
    for (;;) {
      const chunk = await readWithin(reader, 1000);
      if (chunk === null || chunk === TIMEOUT) break;
      chunks.push(chunk);
    }
    expect(chunks).toEqual(frames);
  });

  test("relays frame by frame through a real HTTP server too", async () => {
    const second = deferred();
    const { iterable } = controlledSource(["data: 1\n\n", "data: 2\n\n"], [undefined, second.promise]);
    const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => sseResponse(iterable, { keepAliveMs: 60_000 }) });
    try {
      const res = await fetch(`http://127.0.0.1:${server.port}/`);
      const reader = readerOf(res);
      expect(await readWithin(reader, 2000)).toBe("data: 1\n\n");
      second.release();
      expect(await readWithin(reader, 2000)).toBe("data: 2\n\n");
      expect(await readWithin(reader, 2000)).toBeNull();
    } finally {
      second.release();
      server.stop(true);
    }
  });

  test("an idle stream gets keep-alive comments", async () => {
    const never = deferred();
    const { iterable } = controlledSource(["data: late\n\n"], [never.promise]);
    const reader = readerOf(sseResponse(iterable, { keepAliveMs: 100 }));
    const started = performance.now();
    expect(await readWithin(reader, 2000)).toBe(KEEP_ALIVE_COMMENT);
    expect(performance.now() - started).toBeGreaterThanOrEqual(90);
    expect(KEEP_ALIVE_COMMENT).toBe(": SERVICE PROCESSING\n\n");
    never.release();
    expect(await readWithin(reader, 2000)).toBe("data: late\n\n");
    await reader.cancel();
  });

  test("a format's own keep-alive frame is used when given", async () => {
    const never = deferred();
    const { iterable } = controlledSource(["x"], [never.promise]);
    const reader = readerOf(sseResponse(iterable, { keepAliveMs: 100, keepAliveFrame: 'event: ping\ndata: {"type": "ping"}\n\n' }));
    expect(await readWithin(reader, 2000)).toBe('event: ping\ndata: {"type": "ping"}\n\n');
    await reader.cancel();
    never.release();
  });

  test("each stream keeps its own keep-alive interval", async () => {
    const never = deferred();
    const quick = readerOf(sseResponse(controlledSource(["x"], [never.promise]).iterable, { keepAliveMs: 100 }));
    const slow = readerOf(sseResponse(controlledSource(["x"], [never.promise]).iterable, { keepAliveMs: 5_000 }));
    const slowRead = readWithin(slow, 400);
    expect(await readWithin(quick, 2000)).toBe(KEEP_ALIVE_COMMENT);
    expect(await slowRead).toBe(TIMEOUT);
    await quick.cancel();
    await slow.cancel();
    never.release();
  });

  test("no keep-alive while frames keep flowing", async () => {
    async function* steady() {
      for (let i = 0; i < 12; i++) {
        await Bun.sleep(10);
        yield `data: ${i}\n\n`;
      }
    }
    const text = await sseResponse(steady(), { keepAliveMs: 250 }).text();
    expect(text).not.toContain(KEEP_ALIVE_COMMENT);
    expect(text.split("\n\n").filter(Boolean)).toHaveLength(12);
  });

  test("cancel() (client gone) calls the source's return() and onClose once", async () => {
    let closes = 0;
    const { iterable, stats } = controlledSource(["data: 1\n\n", "data: 2\n\n"]);
    const before = openStreamCount();
    const reader = readerOf(sseResponse(iterable, { keepAliveMs: 60_000, onClose: () => void closes++ }));
    expect(await readWithin(reader, 1000)).toBe("data: 1\n\n");
    // Counted from the moment its body is being sent (what a graceful shutdown waits for).
    expect(openStreamCount()).toBe(before + 1);
    await reader.cancel();
    expect(stats.returned).toBe(1);
    expect(closes).toBe(1);
    expect(openStreamCount()).toBe(before);
  });

  test("a body cancelled before its first pull (client gone before the reply went out) calls onUnread once, before onClose", async () => {
    const calls: string[] = [];
    const { iterable } = controlledSource(["data: 1\n\n"]);
    const response = sseResponse(iterable, { keepAliveMs: 60_000, onClose: () => void calls.push("close"), onUnread: () => void calls.push("unread") });
    await response.body!.cancel();
    expect(calls).toEqual(["unread", "close"]);
  });

  test("a stream that was pulled never calls onUnread, however it ends", async () => {
    let unread = 0;
    const { iterable } = controlledSource(["data: 1\n\n", "data: 2\n\n"]);
    const reader = readerOf(sseResponse(iterable, { keepAliveMs: 60_000, onUnread: () => void unread++ }));
    expect(await readWithin(reader, 1000)).toBe("data: 1\n\n");
    await reader.cancel();
    expect(unread).toBe(0);
  });

  test("cancel() finishes an async generator source (its finally runs, so upstream cleanup happens)", async () => {
    let cleanedUp = false;
    async function* upstream() {
      try {
        yield "data: 1\n\n";
        yield "data: 2\n\n";
      } finally {
        cleanedUp = true;
      }
    }
    const reader = readerOf(sseResponse(upstream(), { keepAliveMs: 60_000 }));
    await readWithin(reader, 1000);
    await reader.cancel();
    expect(cleanedUp).toBe(true);
  });

  test("a finished stream closes once and leaves the open-stream count", async () => {
    let closes = 0;
    const before = openStreamCount();
    const res = sseResponse(controlledSource(["data: 1\n\n", "data: [DONE]\n\n"]).iterable, { keepAliveMs: 60_000, onClose: () => void closes++ });
    expect(await res.text()).toBe("data: 1\n\ndata: [DONE]\n\n");
    expect(closes).toBe(1);
    expect(openStreamCount()).toBe(before);
  });

  test("a source that throws errors the body and still closes once", async () => {
    let closes = 0;
    async function* broken() {
      yield "data: 1\n\n";
      throw new Error("encoder bug");
    }
    const before = openStreamCount();
    const reader = readerOf(sseResponse(broken(), { keepAliveMs: 60_000, onClose: () => void closes++ }));
    expect(await readWithin(reader, 1000)).toBe("data: 1\n\n");
    await expect(reader.read()).rejects.toThrow("encoder bug");
    expect(closes).toBe(1);
    expect(openStreamCount()).toBe(before);
  });
});
