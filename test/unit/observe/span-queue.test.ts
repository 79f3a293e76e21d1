/** The span queue: spans written in place into export batches, bounded, never exporting inside a span's end, every drop counted, a capped shutdown. */
import { describe, expect, test } from "bun:test";
import { exportFrame } from "../../../core/observe/tracing/otlp-proto.ts";
import { SpanQueue, type BodySender } from "../../../core/observe/tracing/span-queue.ts";
import { SpanRecorder } from "../../../core/observe/tracing/span-recorder.ts";
import { decodeTraceRequest } from "../../support/otlp-proto-decode.ts";

const frame = exportFrame({ resource: { "service.name": "gw" }, scope: { name: "inference-gateway", version: "1.0" } });
type Decoded = { resourceSpans: Array<{ resource: { attributes: unknown[] }; scopeSpans: Array<{ scope: unknown; spans: Array<{ name: string }> }> }> };

function recorder(behaviour: "ok" | "fail" | "hang" | "throw" = "ok") {
  /** The span names of each export, decoded when it was sent. */
  const batches: string[][] = [];
  const sender: BodySender = {
    send(body, done) {
      if (behaviour === "throw") throw new Error("exporter bug");
      const decoded = decodeTraceRequest(body) as Decoded;
      expect(decoded.resourceSpans).toHaveLength(1);
      expect(decoded.resourceSpans[0]!.resource.attributes).toEqual([{ key: "service.name", value: { stringValue: "gw" } }]);
      batches.push(decoded.resourceSpans[0]!.scopeSpans[0]!.spans.map((s) => s.name));
      if (behaviour === "ok") setTimeout(() => done(true), 1);
      if (behaviour === "fail") setTimeout(() => done(false), 1);
    },
    shutdown: async () => undefined,
  };
  const counts = { dropped: new Map<string, number>(), exported: 0 };
  const counters = {
    dropped: (reason: string, n: number) => void counts.dropped.set(reason, (counts.dropped.get(reason) ?? 0) + n),
    exported: (n: number) => void (counts.exported += n),
  };
  return { sender, batches, counts, counters };
}

/** Ends one root span named `s<n>` into the queue. */
function span(spans: SpanRecorder, n: number, attributes = 0): void {
  const open = spans.root({ name: `s${n}`, kind: 2, startMs: 1, endMs: 2 }, undefined, undefined)!;
  for (let i = 0; i < attributes; i++) open.str(`a${i}`, "x".repeat(100));
  open.end();
}

describe("span queue", () => {
  test("exports in batches after the span ended, never inside its end; each body whole", async () => {
    const r = recorder();
    const q = new SpanQueue(r.sender, frame, { queueSize: 100, batchSize: 4, delayMs: 10 }, r.counters);
    const spans = new SpanRecorder(q, 1);
    for (let i = 0; i < 10; i++) span(spans, i);
    expect(r.batches).toHaveLength(0);
    await Bun.sleep(60);
    expect(r.batches).toEqual([
      ["s0", "s1", "s2", "s3"],
      ["s4", "s5", "s6", "s7"],
      ["s8", "s9"],
    ]);
    expect(r.counts.exported).toBe(10);
  });

  test("a batch's buffer is reused: a small export after a large one is whole and alone", async () => {
    const r = recorder();
    const q = new SpanQueue(r.sender, frame, { queueSize: 1000, batchSize: 200, delayMs: 5 }, r.counters);
    const spans = new SpanRecorder(q, 1);
    let sent = 0;
    for (let round = 0; round < 6; round++) {
      const count = round % 2 === 0 ? 150 : 2;
      for (let i = 0; i < count; i++) span(spans, round * 1000 + i, round % 2 === 0 ? 8 : 0);
      sent += count;
      // Each round's export is finished before the next round's spans go in (a busy machine may take its time).
      while (r.counts.exported < sent) await Bun.sleep(2);
    }
    expect(r.batches.map((b) => b.length)).toEqual([150, 2, 150, 2, 150, 2]);
    expect(r.batches[5]).toEqual(["s5000", "s5001"]);
  });

  test("a full queue drops new spans and counts them", async () => {
    const r = recorder("hang");
    const q = new SpanQueue(r.sender, frame, { queueSize: 5, batchSize: 5, delayMs: 10 }, r.counters);
    const spans = new SpanRecorder(q, 1);
    for (let i = 0; i < 5; i++) span(spans, i);
    await Bun.sleep(5); // the first batch is now in flight and never ends
    for (let i = 0; i < 8; i++) span(spans, 10 + i);
    expect(r.counts.dropped.get("queue_full")).toBe(3);
  });

  test("a failed export counts its spans as dropped; so does an exporter that throws", async () => {
    for (const behaviour of ["fail", "throw"] as const) {
      const r = recorder(behaviour);
      const q = new SpanQueue(r.sender, frame, { queueSize: 10, batchSize: 10, delayMs: 5 }, r.counters);
      const spans = new SpanRecorder(q, 1);
      for (let i = 0; i < 3; i++) span(spans, i);
      await Bun.sleep(40);
      expect(r.counts.dropped.get("export_failed")).toBe(3);
    }
  });

  test("shutdown flushes for at most two seconds when the collector hangs", async () => {
    const r = recorder("hang");
    const q = new SpanQueue(r.sender, frame, { queueSize: 10, batchSize: 2, delayMs: 5 }, r.counters);
    const spans = new SpanRecorder(q, 1);
    for (let i = 0; i < 6; i++) span(spans, i);
    const started = performance.now();
    await q.shutdown();
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(r.counts.dropped.get("export_failed")).toBe(4);
  });
});
