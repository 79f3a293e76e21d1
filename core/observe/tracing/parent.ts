/**
 * Where a request's trace hangs: the client's W3C `traceparent` header when it sent one; else the request body's
 * `trace` field (`trace_id` + `parent_span_id` as a remote parent, or `trace_id` alone as the id of a new trace);
 * else a new trace. Ids that are not lowercase hex of the right length (or all zeros) are ignored.
 */
import { ROOT_CONTEXT, TraceFlags, trace, type Context, type TextMapGetter } from "@opentelemetry/api";
import type { W3CTraceContextPropagator } from "@opentelemetry/core";

const headerGetter: TextMapGetter<Headers> = {
  get: (carrier, key) => carrier.get(key) ?? undefined,
  keys: (carrier) => [...carrier.keys()],
};

export interface TraceParent {
  context: Context;
  /** A trace id for the request span to take when it starts a trace of its own. */
  traceId: string | undefined;
}

export function parentOf(propagator: W3CTraceContextPropagator, headers: Headers, field: Record<string, unknown> | undefined): TraceParent {
  if (headers.has("traceparent")) {
    const extracted = propagator.extract(ROOT_CONTEXT, headers, headerGetter);
    if (trace.getSpanContext(extracted)) return { context: extracted, traceId: undefined };
  }
  const traceId = hexId(field?.trace_id, 32);
  const spanId = hexId(field?.parent_span_id, 16);
  if (traceId && spanId) {
    return { context: trace.setSpanContext(ROOT_CONTEXT, { traceId, spanId, traceFlags: TraceFlags.SAMPLED, isRemote: true }), traceId: undefined };
  }
  return { context: ROOT_CONTEXT, traceId };
}

function hexId(value: unknown, length: number): string | undefined {
  if (typeof value !== "string") return undefined;
  const id = value.toLowerCase().replaceAll("-", "");
  return id.length === length && /^[0-9a-f]+$/.test(id) && !/^0+$/.test(id) ? id : undefined;
}
