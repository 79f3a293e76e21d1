/**
 * OTLP/JSON encoding of finished spans, written straight to text. The OpenTelemetry transformer builds an object
 * tree per span and stringifies it (19 µs per 3-span request, measured); a request's spans here are a few short
 * strings and numbers, so writing the JSON directly costs a fraction of that. Field names and enum values follow
 * the OTLP/JSON mapping: hex ids, nanosecond times as strings, span kinds 1–5, status codes 0–2.
 */
import type { AttributeValue, Attributes, HrTime } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace";

const str = JSON.stringify;

function nanos(time: HrTime): string {
  return time[0] === 0 ? String(time[1]) : `${time[0]}${String(time[1]).padStart(9, "0")}`;
}

function value(v: AttributeValue): string {
  switch (typeof v) {
    case "string":
      return `{"stringValue":${str(v)}}`;
    case "boolean":
      return `{"boolValue":${v}}`;
    case "number":
      return Number.isInteger(v) ? `{"intValue":"${v}"}` : `{"doubleValue":${Number.isFinite(v) ? v : 0}}`;
    default:
      return Array.isArray(v) ? `{"arrayValue":{"values":[${(v as AttributeValue[]).filter((x) => x !== null && x !== undefined).map(value).join(",")}]}}` : `{"stringValue":${str(String(v))}}`;
  }
}

function attributes(attrs: Attributes): string {
  const out: string[] = [];
  for (const key in attrs) {
    const v = attrs[key];
    if (v !== undefined && v !== null) out.push(`{"key":${str(key)},"value":${value(v)}}`);
  }
  return `[${out.join(",")}]`;
}

function span(s: ReadableSpan): string {
  const context = s.spanContext();
  const parent = s.parentSpanContext?.spanId;
  const status = s.status.code === 0 ? "{}" : `{"code":${s.status.code}${s.status.message ? `,"message":${str(s.status.message)}` : ""}}`;
  return (
    `{"traceId":"${context.traceId}","spanId":"${context.spanId}"${parent ? `,"parentSpanId":"${parent}"` : ""},"name":${str(s.name)},` +
    `"kind":${s.kind + 1},"startTimeUnixNano":"${nanos(s.startTime)}","endTimeUnixNano":"${nanos(s.endTime)}",` +
    `"attributes":${attributes(s.attributes)},"status":${status}}`
  );
}

/** One export request: the spans grouped under their (shared) resource and instrumentation scope. */
export function encodeSpans(spans: readonly ReadableSpan[]): string {
  const first = spans[0];
  if (!first) return `{"resourceSpans":[]}`;
  const scope = first.instrumentationScope;
  return (
    `{"resourceSpans":[{"resource":{"attributes":${attributes(first.resource.attributes as Attributes)}},` +
    `"scopeSpans":[{"scope":{"name":${str(scope.name)}${scope.version ? `,"version":${str(scope.version)}` : ""}},` +
    `"spans":[${spans.map(span).join(",")}]}]}]}`
  );
}
