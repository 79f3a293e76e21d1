import { describe, expect, test } from "bun:test";
import { parseSse, type SseEvent } from "../../../core/provider-kit/sse.ts";
import { drain, streamOf } from "../providers/helpers.ts";

const encode = (s: string): Uint8Array => new TextEncoder().encode(s);

/** Parses `bytes` delivered as two chunks split at `at`. */
async function parseSplit(bytes: Uint8Array, at: number): Promise<SseEvent[]> {
  return drain(parseSse(streamOf([bytes.slice(0, at), bytes.slice(at)])));
}

describe("parseSse", () => {
  const wire =
    ": keep-alive comment\r\n" +
    "event: message\r\n" +
    'data: {"a":"é ✓ 😀"}\r\n' +
    "\r\n" +
    "data: line one\n" +
    "data: line two\n" +
    "id: 7\n" +
    "\n" +
    ":PROCESSING\n" +
    "data:no-space\r" +
    "\r" +
    "data: [DONE]\n\n";
  const expected: SseEvent[] = [
    { event: "message", data: '{"a":"é ✓ 😀"}' },
    { data: "line one\nline two", id: "7" },
    // The last event id persists across events, as the SSE spec's "last event ID buffer" does.
    { data: "no-space", id: "7" },
    { data: "[DONE]", id: "7" },
  ];

  test("parses LF, CRLF and lone CR lines, comments, multi-line data, event and id", async () => {
    expect(await drain(parseSse(streamOf([wire])))).toEqual(expected);
  });

  test("yields the same events for a split at every byte offset (including inside CRLF and multi-byte chars)", async () => {
    const bytes = encode(wire);
    for (let at = 0; at <= bytes.length; at++) {
      expect(await parseSplit(bytes, at)).toEqual(expected);
    }
  });

  test("yields the same events when every byte is its own chunk", async () => {
    const bytes = encode(wire);
    const chunks = Array.from(bytes, (b) => Uint8Array.of(b));
    expect(await drain(parseSse(streamOf(chunks)))).toEqual(expected);
  });

  test("drops events without data lines and resets the event name after dispatch", async () => {
    const events = await drain(parseSse(streamOf(["event: ping\n\nevent: x\ndata: 1\n\ndata: 2\n\n"])));
    expect(events).toEqual([{ event: "x", data: "1" }, { data: "2" }]);
  });

  test("an empty data field yields an empty string; a field without a colon is a field name", async () => {
    expect(await drain(parseSse(streamOf(["data\n\ndata:\n\n"])))).toEqual([{ data: "" }, { data: "" }]);
  });

  test("strips a leading BOM", async () => {
    expect(await drain(parseSse(streamOf(["\uFEFFdata: x\n\n"])))).toEqual([{ data: "x" }]);
  });

  test("flushes a final event whose lines are complete but that lacks the blank line", async () => {
    expect(await drain(parseSse(streamOf(["data: a\n\ndata: b\n"])))).toEqual([{ data: "a" }, { data: "b" }]);
  });

  test("discards a trailing partial line (possibly truncated JSON)", async () => {
    expect(await drain(parseSse(streamOf(['data: a\n\ndata: {"tru'])))).toEqual([{ data: "a" }]);
  });

  test("yields each event as soon as it is complete, before the stream ends", async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(encode("data: first\n\n"));
        await gate;
        controller.enqueue(encode("data: second\n\n"));
        controller.close();
      },
    });
    const it = parseSse(body);
    expect((await it.next()).value).toEqual({ data: "first" });
    release();
    expect((await it.next()).value).toEqual({ data: "second" });
    expect((await it.next()).done).toBe(true);
  });

  test("stopping early cancels the underlying stream", async () => {
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(encode("data: tick\n\n"));
      },
      cancel() {
        cancelled = true;
      },
    });
    for await (const event of parseSse(body)) {
      expect(event.data).toBe("tick");
      break;
    }
    expect(cancelled).toBe(true);
  });

  test("streams 10,000 events (1 MB) incrementally", async () => {
    const line = `data: ${"x".repeat(100)}\n\n`;
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ >= 10_000) controller.close();
        else controller.enqueue(encode(line));
      },
    });
    let count = 0;
    for await (const event of parseSse(body)) {
      expect(event.data.length).toBe(100);
      count++;
    }
    expect(count).toBe(10_000);
  });
});
