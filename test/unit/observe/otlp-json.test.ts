/** OTLP/JSON written by hand: what a collector parses, escaped where a value or a client's key needs it. */
import { describe, expect, test } from "bun:test";
import { AttributeWriter, exportFrame, quote, quoteRepeated, spanJson, unixNanos } from "../../../core/observe/tracing/otlp-json.ts";
import { SpanRecorder } from "../../../core/observe/tracing/span-recorder.ts";

describe("OTLP/JSON text", () => {
  test("attribute values of every type, and text that needs escaping, parse back to what was written", () => {
    const odd = 'a "quoted"\\ value\nwith a control \u0001 char, é and \ud83d\ude00';
    const json = new AttributeWriter()
      .str("s", odd)
      .uniqueStr("u", odd)
      .quoted("q", quote("pre-escaped"))
      .num("i", 42)
      .num("d", 0.25)
      .num("inf", Number.POSITIVE_INFINITY)
      .num("absent", undefined)
      .bool("b", false)
      .strs("list", ["stop", odd])
      .clientValue('team "x"', "search")
      .clientValue("n", 7)
      .toJson();
    expect(JSON.parse(json)).toEqual([
      { key: "s", value: { stringValue: odd } },
      { key: "u", value: { stringValue: odd } },
      { key: "q", value: { stringValue: "pre-escaped" } },
      { key: "i", value: { intValue: "42" } },
      { key: "d", value: { doubleValue: 0.25 } },
      { key: "inf", value: { doubleValue: 0 } },
      { key: "b", value: { boolValue: false } },
      { key: "list", value: { arrayValue: { values: [{ stringValue: "stop" }, { stringValue: odd }] } } },
      { key: 'team "x"', value: { stringValue: "search" } },
      { key: "n", value: { intValue: "7" } },
    ]);
    // A lone surrogate is escaped rather than sent as invalid UTF-8.
    expect(JSON.parse(quote("x\ud800"))).toBe("x\ud800");
    expect(quoteRepeated(odd)).toBe(JSON.stringify(odd));
  });

  test("fragments written once join other attribute lists", () => {
    const cached = new AttributeWriter().str("a", "1").str("b", "2").fragment();
    const json = new AttributeWriter().raw(cached).num("c", 3).raw("").toJson();
    expect(JSON.parse(json).map((kv: { key: string }) => kv.key)).toEqual(["a", "b", "c"]);
    expect(JSON.parse(new AttributeWriter().toJson())).toEqual([]);
  });

  test("Unix milliseconds become decimal nanoseconds, fractions included", () => {
    expect(unixNanos(0)).toBe("0");
    expect(unixNanos(1_764_000_000_123)).toBe("1764000000123000000");
    expect(unixNanos(1_764_000_000_123)).toBe("1764000000123000000"); // the remembered last value
    expect(unixNanos(1_764_000_000_123.5)).toBe("1764000000123500000");
    expect(unixNanos(0.25)).toBe("250000");
    expect(unixNanos(12.000001)).toBe("12000001");
  });

  test("an export request: resource, scope and spans, with parent ids, kinds, times and error status", () => {
    const spans: string[] = [];
    const recorder = new SpanRecorder({ onEnd: (span) => spans.push(span) }, 1);
    const root = recorder.root({ name: "POST /chat/completions", kind: 2, startMs: 1000, endMs: 1010, attributes: new AttributeWriter().num("http.response.status_code", 200).toJson() }, undefined, undefined)!;
    const child = recorder.child({ name: "attempt a", kind: 3, startMs: 1001, endMs: 1000, attributes: "[]", error: 'upstream said "no"' }, root);
    const frame = exportFrame({ resource: { "service.name": "gw" }, scope: { name: "inference-gateway", version: "1.0" } });
    const body = JSON.parse(frame.head + spans.join(",") + frame.tail);
    const [resourceSpans] = body.resourceSpans;
    expect(resourceSpans.resource.attributes).toEqual([{ key: "service.name", value: { stringValue: "gw" } }]);
    expect(resourceSpans.scopeSpans[0].scope).toEqual({ name: "inference-gateway", version: "1.0" });
    const [first, second] = resourceSpans.scopeSpans[0].spans;
    expect(first).toMatchObject({ traceId: root.traceId, spanId: root.spanId, name: "POST /chat/completions", kind: 2, startTimeUnixNano: "1000000000", endTimeUnixNano: "1010000000", status: {} });
    expect(first.parentSpanId).toBeUndefined();
    expect(root.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(child.spanId).toMatch(/^[0-9a-f]{16}$/);
    // An end before the start is clamped to the start.
    expect(second).toMatchObject({ traceId: root.traceId, spanId: child.spanId, parentSpanId: root.spanId, kind: 3, endTimeUnixNano: "1001000000", status: { code: 2, message: 'upstream said "no"' } });
    expect(JSON.parse(spanJson({ traceId: "a".repeat(32), spanId: "b".repeat(16), parentSpanId: undefined, name: "x", kind: 1, startMs: 0, endMs: 0, attributes: "[]", error: undefined })).startTimeUnixNano).toBe("0");
  });

  test("sampling: a remote parent's flag decides, else the ratio; an unsampled root writes nothing", () => {
    const spans: string[] = [];
    const never = new SpanRecorder({ onEnd: (span) => spans.push(span) }, 0);
    const spec = { name: "r", kind: 2 as const, startMs: 0, endMs: 1, attributes: "[]" };
    expect(never.root(spec, undefined, undefined)).toBeUndefined();
    const parent = { traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "00f067aa0ba902b7", traceFlags: 1 };
    expect(never.root(spec, parent, undefined)?.traceId).toBe(parent.traceId);
    const always = new SpanRecorder({ onEnd: (span) => spans.push(span) }, 1);
    expect(always.root(spec, { ...parent, traceFlags: 0 }, undefined)).toBeUndefined();
    expect(always.root(spec, undefined, "11112222333344445555666677778888")?.traceId).toBe("11112222333344445555666677778888");
    expect(spans).toHaveLength(2);
  });
});
