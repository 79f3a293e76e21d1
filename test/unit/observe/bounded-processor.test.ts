/** The span queue: bounded, never exporting inside span.end(), every drop counted, a capped shutdown. */
import { describe, expect, test } from "bun:test";
import { ExportResultCode, type ExportResult } from "@opentelemetry/core";
import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace";
import { BoundedSpanProcessor } from "../../../core/observe/tracing/bounded-processor.ts";

const span = (n: number) => ({ name: `s${n}`, spanContext: () => ({ traceFlags: 1 }) }) as unknown as ReadableSpan;

function recorder(behaviour: "ok" | "fail" | "hang" = "ok") {
  const batches: ReadableSpan[][] = [];
  const exporter: SpanExporter = {
    export(spans, done: (result: ExportResult) => void) {
      batches.push(spans);
      if (behaviour === "ok") setTimeout(() => done({ code: ExportResultCode.SUCCESS }), 1);
      if (behaviour === "fail") setTimeout(() => done({ code: ExportResultCode.FAILED }), 1);
    },
    shutdown: async () => undefined,
  };
  const counts = { dropped: new Map<string, number>(), exported: 0 };
  const counters = {
    dropped: (reason: string, n: number) => void counts.dropped.set(reason, (counts.dropped.get(reason) ?? 0) + n),
    exported: (n: number) => void (counts.exported += n),
  };
  return { exporter, batches, counts, counters };
}

describe("bounded span processor", () => {
  test("exports in batches after the span ended, never inside onEnd", async () => {
    const r = recorder();
    const p = new BoundedSpanProcessor(r.exporter, { queueSize: 100, batchSize: 4, delayMs: 10 }, r.counters);
    for (let i = 0; i < 10; i++) p.onEnd(span(i));
    expect(r.batches).toHaveLength(0);
    await Bun.sleep(60);
    expect(r.batches.map((b) => b.length)).toEqual([4, 4, 2]);
    expect(r.counts.exported).toBe(10);
  });

  test("a full queue drops new spans and counts them", async () => {
    const r = recorder("hang");
    const p = new BoundedSpanProcessor(r.exporter, { queueSize: 5, batchSize: 5, delayMs: 10 }, r.counters);
    for (let i = 0; i < 5; i++) p.onEnd(span(i));
    await Bun.sleep(5); // the first batch is now in flight and never ends
    for (let i = 0; i < 8; i++) p.onEnd(span(i));
    expect(r.counts.dropped.get("queue_full")).toBe(3);
  });

  test("a failed export counts its spans as dropped", async () => {
    const r = recorder("fail");
    const p = new BoundedSpanProcessor(r.exporter, { queueSize: 10, batchSize: 10, delayMs: 5 }, r.counters);
    for (let i = 0; i < 3; i++) p.onEnd(span(i));
    await Bun.sleep(40);
    expect(r.counts.dropped.get("export_failed")).toBe(3);
  });

  test("shutdown flushes for at most two seconds when the collector hangs", async () => {
    const r = recorder("hang");
    const p = new BoundedSpanProcessor(r.exporter, { queueSize: 10, batchSize: 2, delayMs: 5 }, r.counters);
    for (let i = 0; i < 6; i++) p.onEnd(span(i));
    const started = performance.now();
    await p.shutdown();
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(r.counts.dropped.get("export_failed")).toBe(4);
  });
});
