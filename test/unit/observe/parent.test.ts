/** Where a request's trace hangs: traceparent, else the body's trace field, else a new trace. */
import { describe, expect, test } from "bun:test";
import { trace } from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { parentOf } from "../../../core/observe/tracing/parent.ts";

const propagator = new W3CTraceContextPropagator();
const T = "4bf92f3577b34da6a3ce929d0e0e4736";
const S = "00f067aa0ba902b7";

describe("trace parent", () => {
  test("a traceparent header wins", () => {
    const parent = parentOf(propagator, new Headers({ traceparent: `00-${T}-${S}-01` }), { trace_id: "0af7651916cd43dd8448eb211c80319c", parent_span_id: "b7ad6b7169203331" });
    expect(trace.getSpanContext(parent.context)).toMatchObject({ traceId: T, spanId: S, isRemote: true });
  });

  test("the trace field: both ids make a remote parent; a trace id alone names a new trace; UUIDs are accepted", () => {
    const both = parentOf(propagator, new Headers(), { trace_id: T, parent_span_id: S });
    expect(trace.getSpanContext(both.context)).toMatchObject({ traceId: T, spanId: S });
    const alone = parentOf(propagator, new Headers(), { trace_id: "4bf92f35-77b3-4da6-a3ce-929d0e0e4736" });
    expect(trace.getSpanContext(alone.context)).toBeUndefined();
    expect(alone.traceId).toBe(T);
  });

  test("malformed ids and a broken traceparent are ignored", () => {
    expect(parentOf(propagator, new Headers({ traceparent: "garbage" }), undefined).traceId).toBeUndefined();
    expect(trace.getSpanContext(parentOf(propagator, new Headers({ traceparent: "garbage" }), undefined).context)).toBeUndefined();
    expect(parentOf(propagator, new Headers(), { trace_id: "0".repeat(32) }).traceId).toBeUndefined();
    expect(parentOf(propagator, new Headers(), { trace_id: "xyz" }).traceId).toBeUndefined();
    expect(parentOf(propagator, new Headers(), { trace_id: 42 }).traceId).toBeUndefined();
  });
});
