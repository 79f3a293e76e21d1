/** OTLP protobuf written by hand: what a collector decodes, for every value type, length and time. */
import { describe, expect, test } from "bun:test";
import { abandonPartialSpans, AttributeWriter, envelopeRoom, exportFrame, frameSpans, SpanWriter, type SpanHeader } from "../../../core/observe/tracing/otlp-proto.ts";
import { ProtoWriter } from "../../../core/observe/tracing/proto-writer.ts";
import { SpanParent, SpanRecorder } from "../../../core/observe/tracing/span-recorder.ts";
import { decodeTraceRequest } from "../../support/otlp-proto-decode.ts";

const frame = exportFrame({ resource: { "service.name": "gw", "service.version": "1.0" }, scope: { name: "inference-gateway", version: "1.0" } });
const room = envelopeRoom(frame);

type Decoded = { resourceSpans: Array<{ resource: { attributes: unknown[] }; scopeSpans: Array<{ scope: unknown; spans: Array<Record<string, unknown>> }> }> };

/** A span sink of one export batch, as the queue keeps them: spans written in place after the envelope's room. */
function batch() {
  const writer = new ProtoWriter(16);
  writer.pos = room;
  const ended: number[] = [];
  return { writer, ended: (start: number) => void ended.push(start), starts: ended, decode: () => decodeTraceRequest(frameSpans(writer, frame, room)) as Decoded };
}

/** `4bf92f3577b34da6a3ce929d0e0e4736` / `00f067aa0ba902b7` as words (a leading zero word included). */
const IDS = new SpanParent(0x4bf92f35, 0x77b34da6, 0xa3ce929d, 0x0e0e4736, 0x00f067aa, 0x0ba902b7);

/** One span with the attributes `write` adds, decoded from an export request. */
function oneSpan(write: (a: AttributeWriter) => unknown, header: Partial<SpanHeader> = {}) {
  const b = batch();
  const span = new SpanWriter(b.writer, { ids: IDS, parent: undefined, name: "s", kind: 1, startMs: 1, endMs: 2, ...header });
  write(span);
  span.finish(undefined);
  return b.decode().resourceSpans[0]!.scopeSpans[0]!.spans[0]!;
}

describe("OTLP protobuf", () => {
  test("attribute values of every type, long and non-ASCII text included, decode to what was written", () => {
    const long = "é".repeat(200) + "\ud83d\ude00";
    const span = oneSpan((a) =>
      a
      .str("s", "bench/small")
      .str("s2", long)
      .str("u", 'a "quoted"\\ value\n')
      .num("i", 42)
      .num("big", 2 ** 40 + 3)
      .num("neg", -5)
      .num("d", 0.25)
      .num("inf", Number.POSITIVE_INFINITY)
      .num("absent", undefined)
      .bool("b", false)
      .bool("t", true)
      .strs("list", ["stop"])
      .strs("list2", ["a", long])
      .clientValue('team "x"', "search")
      .clientValue("n", -7),
    );
    expect(span.attributes).toEqual([
      { key: "s", value: { stringValue: "bench/small" } },
      { key: "s2", value: { stringValue: long } },
      { key: "u", value: { stringValue: 'a "quoted"\\ value\n' } },
      { key: "i", value: { intValue: "42" } },
      { key: "big", value: { intValue: String(2 ** 40 + 3) } },
      { key: "neg", value: { intValue: "-5" } },
      { key: "d", value: { doubleValue: 0.25 } },
      { key: "inf", value: { doubleValue: 0 } },
      { key: "b", value: { boolValue: false } },
      { key: "t", value: { boolValue: true } },
      { key: "list", value: { arrayValue: { values: [{ stringValue: "stop" }] } } },
      { key: "list2", value: { arrayValue: { values: [{ stringValue: "a" }, { stringValue: long }] } } },
      { key: 'team "x"', value: { stringValue: "search" } },
      { key: "n", value: { intValue: "-7" } },
    ]);
  });

  test("the same attributes encode to the same bytes; fragments join other lists", () => {
    const first = new AttributeWriter().str("gateway.provider", "sim").num("http.response.status_code", 200).fragment();
    const second = new AttributeWriter().str("gateway.provider", "sim").num("http.response.status_code", 200).fragment();
    expect(second).toEqual(first);
    // A writer opened inside a span (an endpoint's cached attributes) leaves the span's bytes as they were.
    let cached: Uint8Array = new Uint8Array();
    const span = oneSpan((a) => {
      a.str("x", "0");
      cached = new AttributeWriter().str("a", "1").str("b", "2").fragment();
      a.raw(cached).num("c", 3).raw(new Uint8Array());
    });
    expect(oneSpan((a) => a.raw(cached)).attributes).toHaveLength(2);
    expect(span.attributes).toEqual([
      { key: "x", value: { stringValue: "0" } },
      { key: "a", value: { stringValue: "1" } },
      { key: "b", value: { stringValue: "2" } },
      { key: "c", value: { intValue: "3" } },
    ]);
  });

  test("Unix milliseconds become exact fixed64 nanoseconds, fractions included", () => {
    for (const ms of [0, 1, 1_764_000_000_123, 1_764_000_000_123.5, 12.000001, 2 ** 42 + 7, 4_102_444_800_000]) {
      const span = oneSpan(() => undefined, { startMs: ms, endMs: ms });
      const expected = BigInt(Math.floor(ms)) * 1_000_000n + BigInt(Math.round((ms - Math.floor(ms)) * 1e6));
      expect(span.startTimeUnixNano).toBe(expected.toString());
    }
    // An end before the start is clamped to the start.
    expect(oneSpan(() => undefined, { startMs: 1001, endMs: 1000 }).endTimeUnixNano).toBe("1001000000");
  });

  test("ids are written as bytes: the hex a collector shows, leading zeros kept", () => {
    const span = oneSpan(() => undefined, { parent: new SpanParent(0, 0, 0, 0, 0, 1) });
    expect(span).toMatchObject({ traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "00f067aa0ba902b7", parentSpanId: "0000000000000001" });
    expect(IDS.traceId).toBe("4bf92f3577b34da6a3ce929d0e0e4736");
    expect(IDS.spanId).toBe("00f067aa0ba902b7");
  });

  test("nested lengths of 128 bytes and more are moved into place", () => {
    for (const length of [126, 127, 128, 129, 16_383, 16_384, 70_000]) {
      const b = batch();
      const at = b.writer.begin(2);
      b.writer.string(5, "x".repeat(length));
      b.writer.end(at);
      expect(b.decode().resourceSpans[0]!.scopeSpans[0]!.spans[0]!.name).toBe("x".repeat(length));
    }
  });

  test("a span's two reserved length bytes fit 128 bytes to 16 KB in place; shorter and longer spans are moved", () => {
    for (const length of [0, 1, 120, 124, 125, 126, 127, 128, 200, 16_370, 16_379, 16_380, 16_381, 20_000, 70_000]) {
      const b = batch();
      const at = b.writer.beginLarge(2);
      b.writer.string(5, "x".repeat(length));
      b.writer.endLarge(at);
      expect(b.decode().resourceSpans[0]!.scopeSpans[0]!.spans[0]!.name).toBe("x".repeat(length));
    }
  });

  test("an export request: resource, scope and spans, with parent ids, kinds and error status", () => {
    const b = batch();
    const recorder = new SpanRecorder(b, 1);
    const root = recorder.root({ name: "POST /chat/completions", kind: 2, startMs: 1000, endMs: 1010 }, undefined, undefined)!.num("http.response.status_code", 200).end();
    const children = Array.from({ length: 300 }, (_, i) => recorder.child({ name: `attempt ${i}`, kind: 3, startMs: 1001, endMs: 1002 }, root).end(i === 0 ? 'upstream said "no"' : undefined));
    expect(b.starts).toHaveLength(301);
    const body = b.decode();
    const [resourceSpans] = body.resourceSpans;
    expect(resourceSpans!.resource.attributes).toEqual([
      { key: "service.name", value: { stringValue: "gw" } },
      { key: "service.version", value: { stringValue: "1.0" } },
    ]);
    expect(resourceSpans!.scopeSpans[0]!.scope).toEqual({ name: "inference-gateway", version: "1.0" });
    const [first, second, ...rest] = resourceSpans!.scopeSpans[0]!.spans;
    expect(first).toMatchObject({ traceId: root.traceId, spanId: root.spanId, name: "POST /chat/completions", kind: 2, startTimeUnixNano: "1000000000", endTimeUnixNano: "1010000000", status: {} });
    expect(first!.parentSpanId).toBeUndefined();
    expect(root.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(second).toMatchObject({ traceId: root.traceId, spanId: children[0]!.spanId, parentSpanId: root.spanId, kind: 3, status: { code: 2, message: 'upstream said "no"' } });
    expect(rest).toHaveLength(299);
    expect(new Set(children.map((c) => c.spanId)).size).toBe(300);
    expect(children.every((c) => c.traceId === root.traceId)).toBe(true);
  });

  test("a span build that failed half-way leaves nothing behind once abandoned", () => {
    const b = batch();
    const recorder = new SpanRecorder(b, 1);
    const kept = recorder.root({ name: "kept", kind: 2, startMs: 1, endMs: 2 }, undefined, undefined)!.end();
    const broken = new SpanWriter(b.writer, { ids: IDS, parent: kept, name: "broken", kind: 1, startMs: 1, endMs: 2 });
    broken.str("half", "written");
    abandonPartialSpans();
    recorder.child({ name: "next", kind: 1, startMs: 1, endMs: 2 }, kept).str("k", "v").end();
    const spans = b.decode().resourceSpans[0]!.scopeSpans[0]!.spans;
    expect(spans.map((s) => s.name)).toEqual(["kept", "next"]);
    expect(spans[1]!.attributes).toEqual([{ key: "k", value: { stringValue: "v" } }]);
  });

  test("sampling: a remote parent's flag decides, else the ratio; an unsampled root writes nothing", () => {
    const b = batch();
    const never = new SpanRecorder(b, 0);
    const spec = { name: "r", kind: 2 as const, startMs: 0, endMs: 1 };
    expect(never.root(spec, undefined, undefined)).toBeUndefined();
    const parent = { traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "00f067aa0ba902b7", traceFlags: 1 };
    expect(never.root(spec, parent, undefined)?.end().traceId).toBe(parent.traceId);
    const always = new SpanRecorder(b, 1);
    expect(always.root(spec, { ...parent, traceFlags: 0 }, undefined)).toBeUndefined();
    expect(always.root(spec, undefined, "11112222333344445555666677778888")?.end().traceId).toBe("11112222333344445555666677778888");
    expect(b.starts).toHaveLength(2);
    const spans = b.decode().resourceSpans[0]!.scopeSpans[0]!.spans;
    expect(spans.map((s) => [s.traceId, s.parentSpanId])).toEqual([
      [parent.traceId, parent.spanId],
      ["11112222333344445555666677778888", undefined],
    ]);
  });
});
