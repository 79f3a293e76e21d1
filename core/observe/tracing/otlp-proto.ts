/**
 * OTLP spans in the protobuf encoding (`opentelemetry/proto/trace/v1`, the OTLP/HTTP default every collector
 * accepts), written straight from the values a request recorded. Tracing every request spent most of its time on
 * text: building attribute objects, escaping, and a ~2.9 KB JSON string per request that the export joined, encoded
 * and sent (and the collector decoded) — the bytes themselves cost ~1.6 ns each end to end on loopback, measured.
 * Here a request's spans are ~1.3 KB of bytes, and an attribute whose key and value repeat from request to request
 * (format, route, model, provider, outcome, small counts) is encoded once and copied after that.
 *
 * Field numbers: Span 1 trace_id, 2 span_id, 4 parent_span_id, 5 name, 6 kind, 7/8 start/end (fixed64 ns),
 * 9 attributes, 15 status (2 message, 3 code); KeyValue 1 key, 2 value; AnyValue 1 string, 2 bool, 3 int, 4 double,
 * 5 array (1 values); ExportTraceServiceRequest 1 resource_spans; ResourceSpans 1 resource (1 attributes),
 * 2 scope_spans; ScopeSpans 1 scope (1 name, 2 version), 2 spans.
 */
import { ProtoWriter, varintSize } from "./proto-writer.ts";

/** Every span and attribute is written here, then copied out (writing is synchronous: no two users overlap). */
const scratch = new ProtoWriter();

/**
 * Forgets whatever a failed span build left half-written in the shared buffer (called when building a request's
 * spans threw: nothing else is open between two requests' builds).
 */
export function abandonPartialSpans(): void {
  scratch.pos = 0;
}

const SPAN_ATTRIBUTES = 9;
const RESOURCE_ATTRIBUTES = 1;

type Scalar = string | number | boolean;

/** Writes one KeyValue message as field `field` of its parent. */
function writeKeyValue(field: number, key: string, value: Scalar | readonly string[]): void {
  const kv = scratch.begin(field);
  scratch.string(1, key);
  const any = scratch.begin(2);
  if (typeof value === "string") scratch.string(1, value);
  else if (typeof value === "boolean") scratch.int64(2, value ? 1 : 0);
  else if (typeof value === "number") {
    if (Number.isSafeInteger(value)) scratch.int64(3, value);
    else scratch.double(4, Number.isFinite(value) ? value : 0);
  } else {
    const array = scratch.begin(5);
    for (const item of value) {
      const element = scratch.begin(1);
      scratch.string(1, item).end(element);
    }
    scratch.end(array);
  }
  scratch.end(any).end(kv);
}

/** One span attribute's bytes, to be kept. */
function keyValue(key: string, value: Scalar | readonly string[]): Uint8Array {
  const start = scratch.pos;
  writeKeyValue(SPAN_ATTRIBUTES, key, value);
  return scratch.take(start);
}

/**
 * Encoded attributes whose key and value repeat, per key. Emptied when full, so a client sending ever new names
 * only ever gets the uncached path.
 */
const REPEATED = new Map<string, Map<Scalar, Uint8Array>>();
const REPEATED_PER_KEY = 512;

function repeated(key: string, value: Scalar, write: () => Uint8Array): Uint8Array {
  let values = REPEATED.get(key);
  if (values === undefined) REPEATED.set(key, (values = new Map()));
  let found = values.get(value);
  if (found === undefined) {
    if (values.size >= REPEATED_PER_KEY) values.clear();
    values.set(value, (found = write()));
  }
  return found;
}

/**
 * Span attributes, encoded straight into the shared buffer after whatever is open there (a span's header). Writers
 * nest like a stack: one opened while another is open (an endpoint's cached attributes, computed mid-span) must be
 * finished before the outer one continues.
 */
export class AttributeWriter {
  /** Where this writer's bytes begin. */
  protected readonly start = scratch.pos;

  /** A string attribute whose value repeats across requests (a model, a provider, a closed-set name). */
  str(key: string, value: string | undefined): this {
    if (value !== undefined) scratch.bytes(repeated(key, value, () => keyValue(key, value)));
    return this;
  }

  /** A string attribute whose value is new each time (an id): not cached. */
  uniqueStr(key: string, value: string): this {
    writeKeyValue(SPAN_ATTRIBUTES, key, value);
    return this;
  }

  /** Integers as intValue, anything else as doubleValue; small non-negative integers repeat. */
  num(key: string, value: number | undefined): this {
    if (value === undefined) return this;
    if (Number.isInteger(value) && value >= 0 && value < 4096) scratch.bytes(repeated(key, value, () => keyValue(key, value)));
    else writeKeyValue(SPAN_ATTRIBUTES, key, value);
    return this;
  }

  bool(key: string, value: boolean | undefined): this {
    if (value !== undefined) scratch.bytes(repeated(key, value, () => keyValue(key, value)));
    return this;
  }

  /** A one-element list repeats like a string (a turn's finish reason); longer ones are written each time. */
  strs(key: string, values: readonly string[]): this {
    if (values.length === 1) scratch.bytes(repeated(`${key}[]`, values[0]!, () => keyValue(key, values)));
    else writeKeyValue(SPAN_ATTRIBUTES, key, values);
    return this;
  }

  /** A value of a client-chosen key (the request's `trace` field): not cached. */
  clientValue(key: string, value: Scalar): this {
    writeKeyValue(SPAN_ATTRIBUTES, key, value);
    return this;
  }

  /** Attributes another writer wrote (`fragment()`), e.g. ones cached per endpoint. */
  raw(fragment: Uint8Array): this {
    scratch.bytes(fragment);
    return this;
  }

  /** What this writer wrote, taken out of the buffer: to be added to other lists with `raw`. */
  fragment(): Uint8Array {
    return scratch.take(this.start);
  }
}

export interface SpanHeader {
  /** Lowercase hex, 32 characters. */
  traceId: string;
  /** Lowercase hex, 16 characters. */
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  /** OTLP span kind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  /** Unix ms. */
  startMs: number;
  endMs: number;
}

/**
 * One Span message being written: its header at once, then its attributes (the AttributeWriter methods), then
 * `finish`. An end before the start is clamped to it.
 */
export class SpanWriter extends AttributeWriter {
  constructor(h: SpanHeader) {
    super();
    scratch.hex(1, h.traceId).hex(2, h.spanId);
    if (h.parentSpanId !== undefined) scratch.hex(4, h.parentSpanId);
    scratch.string(5, h.name).int64(6, h.kind).unixNanos(7, h.startMs).unixNanos(8, Math.max(h.endMs, h.startMs));
  }

  /** The Span's bytes (without its field tag: the export frames it); `error` sets status ERROR with that message. */
  finish(error: string | undefined): Uint8Array {
    if (error !== undefined) {
      const status = scratch.begin(15);
      scratch.string(2, error).int64(3, 2);
      scratch.end(status);
    }
    return scratch.take(this.start);
  }
}

export interface ExportEnvelope {
  resource: Record<string, string>;
  scope: { name: string; version: string };
}

/** The resource and scope every export carries, encoded once. */
export interface ExportFrame {
  /** `resource` (field 1 of ResourceSpans), tagged. */
  resource: Uint8Array;
  /** `scope` (field 1 of ScopeSpans), tagged. */
  scope: Uint8Array;
}

export function exportFrame(envelope: ExportEnvelope): ExportFrame {
  let start = scratch.pos;
  const resource = scratch.begin(1);
  for (const [key, value] of Object.entries(envelope.resource)) writeKeyValue(RESOURCE_ATTRIBUTES, key, value);
  scratch.end(resource);
  const resourceBytes = scratch.take(start);
  start = scratch.pos;
  const scope = scratch.begin(1);
  scratch.string(1, envelope.scope.name).string(2, envelope.scope.version);
  scratch.end(scope);
  return { resource: resourceBytes, scope: scratch.take(start) };
}

/**
 * One ExportTraceServiceRequest: the spans (from `SpanWriter.finish`) under the frame's resource and scope, written
 * from the start of `w` (its buffer is reused: the result is a view of it, valid until `w` is written again).
 */
export function exportBody(w: ProtoWriter, frame: ExportFrame, spans: readonly Uint8Array[]): Uint8Array {
  let spansSize = 0;
  for (const span of spans) spansSize += 1 + varintSize(span.length) + span.length;
  const scopeSpans = frame.scope.length + spansSize;
  const resourceSpans = frame.resource.length + 1 + varintSize(scopeSpans) + scopeSpans;
  w.pos = 0;
  w.tag(1, 2).varint(resourceSpans).bytes(frame.resource).tag(2, 2).varint(scopeSpans).bytes(frame.scope);
  for (const span of spans) w.tag(2, 2).varint(span.length).bytes(span);
  return w.written();
}
