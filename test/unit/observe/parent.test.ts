/**
 * Where a request's trace hangs: traceparent, else the body's trace field, else a new trace. The header parse is
 * checked against OpenTelemetry's own W3C propagator (a dev dependency, the reference) on a corpus of valid and
 * broken headers.
 */
import { describe, expect, test } from "bun:test";
import { ROOT_CONTEXT, trace, type TextMapGetter } from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { parentOf, parseTraceparent } from "../../../core/observe/tracing/parent.ts";

const T = "4bf92f3577b34da6a3ce929d0e0e4736";
const S = "00f067aa0ba902b7";

describe("trace parent", () => {
  test("a traceparent header wins", () => {
    const parent = parentOf(new Headers({ traceparent: `00-${T}-${S}-01` }), { trace_id: "0af7651916cd43dd8448eb211c80319c", parent_span_id: "b7ad6b7169203331" });
    expect(parent).toEqual({ remote: { traceId: T, spanId: S, traceFlags: 1 }, traceId: undefined });
  });

  test("the trace field: both ids make a remote parent; a trace id alone names a new trace; UUIDs are accepted", () => {
    expect(parentOf(new Headers(), { trace_id: T, parent_span_id: S }).remote).toEqual({ traceId: T, spanId: S, traceFlags: 1 });
    const alone = parentOf(new Headers(), { trace_id: "4bf92f35-77b3-4da6-a3ce-929d0e0e4736" });
    expect(alone).toEqual({ remote: undefined, traceId: T });
  });

  test("malformed ids and a broken traceparent are ignored", () => {
    expect(parentOf(new Headers({ traceparent: "garbage" }), undefined)).toEqual({ remote: undefined, traceId: undefined });
    expect(parentOf(new Headers(), { trace_id: "0".repeat(32) }).traceId).toBeUndefined();
    expect(parentOf(new Headers(), { trace_id: "xyz" }).traceId).toBeUndefined();
    expect(parentOf(new Headers(), { trace_id: 42 }).traceId).toBeUndefined();
  });

  test("the header parse agrees with OpenTelemetry's W3C propagator on every case of the corpus", () => {
    const corpus = [
      `00-${T}-${S}-01`,
      `00-${T}-${S}-00`,
      `00-${T}-${S}-ff`,
      ` 00-${T}-${S}-01`,
      `00-${T}-${S}-01 `,
      `00-${T}-${S}-01-extra`,
      `01-${T}-${S}-01`,
      `01-${T}-${S}-01-future-field`,
      `cc-${T}-${S}-09`,
      `ff-${T}-${S}-01`,
      `00-${"0".repeat(32)}-${S}-01`,
      `00-${T}-${"0".repeat(16)}-01`,
      `00-${T.toUpperCase()}-${S}-01`,
      `00-${T}-${S}-1`,
      `00-${T}${"a"}-${S}-01`,
      `00_${T}_${S}_01`,
      `0-${T}-${S}-01`,
      `00-${T}-${S}-01, 00-${T}-${S}-00`,
      "",
      "garbage",
    ];
    const propagator = new W3CTraceContextPropagator();
    const getter: TextMapGetter<Record<string, string>> = { get: (carrier, key) => carrier[key], keys: (carrier) => Object.keys(carrier) };
    for (const header of corpus) {
      const reference = trace.getSpanContext(propagator.extract(ROOT_CONTEXT, { traceparent: header }, getter));
      const expected = reference ? { traceId: reference.traceId, spanId: reference.spanId, traceFlags: reference.traceFlags } : undefined;
      expect({ header, parsed: parseTraceparent(header) }).toEqual({ header, parsed: expected });
    }
    expect(parseTraceparent(null)).toBeUndefined();
  });
});
