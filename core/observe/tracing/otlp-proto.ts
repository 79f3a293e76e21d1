/**
 * OTLP spans in the protobuf encoding (`opentelemetry/proto/trace/v1`, the OTLP/HTTP default every collector
 * accepts), written straight from the values a request recorded. Tracing every request spent most of its time on
 * text: building attribute objects, escaping, and a ~2.9 KB JSON string per request that the export joined, encoded
 * and sent (and the collector decoded) — the bytes themselves cost ~1.6 ns each end to end on loopback, measured.
 * Here a request's spans are ~1.45 KB of bytes, and what repeats from request to request (a span's name and its
 * attributes from closed sets) is encoded once per combination and copied after that (span-shapes.ts).
 *
 * Field numbers: Span 1 trace_id, 2 span_id, 4 parent_span_id, 5 name, 6 kind, 7/8 start/end (fixed64 ns),
 * 9 attributes, 15 status (2 message, 3 code); KeyValue 1 key, 2 value; AnyValue 1 string, 2 bool, 3 int, 4 double,
 * 5 array (1 values); ExportTraceServiceRequest 1 resource_spans; ResourceSpans 1 resource (1 attributes),
 * 2 scope_spans; ScopeSpans 1 scope (1 name, 2 version), 2 spans.
 */
import { ProtoWriter, varintSize } from "./proto-writer.ts";

/**
 * Where spans and attributes are written now: the export batch of the span being written (span-queue.ts), so a span
 * is written once, in place, into the body that will be sent. Writing is synchronous: no two users overlap.
 */
let out = new ProtoWriter();
/** The span being written, for `abandonPartialSpans`: its writer and where it began. */
let openWriter: ProtoWriter | undefined;
let openAt = 0;

/**
 * Forgets whatever a failed span build left half-written (called when building a request's spans threw: nothing
 * else is open between two requests' builds).
 */
export function abandonPartialSpans(): void {
  if (openWriter) openWriter.pos = openAt;
  openWriter = undefined;
}

const SPAN_ATTRIBUTES = 9;
const RESOURCE_ATTRIBUTES = 1;

type Scalar = string | number | boolean;

/** Writes one KeyValue message as field `field` of its parent: integers as intValue, other numbers doubleValue. */
function writeKeyValue(field: number, key: string, value: Scalar | readonly string[]): void {
  const kv = out.begin(field);
  out.string(1, key);
  const any = out.begin(2);
  if (typeof value === "string") out.string(1, value);
  else if (typeof value === "boolean") out.int64(2, value ? 1 : 0);
  else if (typeof value === "number") {
    if (Number.isSafeInteger(value)) out.int64(3, value);
    else out.double(4, Number.isFinite(value) ? value : 0);
  } else {
    const array = out.begin(5);
    for (const item of value) {
      const element = out.begin(1);
      out.string(1, item).end(element);
    }
    out.end(array);
  }
  out.end(any).end(kv);
}

/**
 * Span attributes, encoded straight into the shared buffer after whatever is open there (a span's header). Writers
 * nest like a stack: one opened while another is open (a span shape, built mid-span) must be finished before the
 * outer one continues. What repeats from request to request is not cached here but as a whole span shape
 * (span-shapes.ts); the per-request values go under keys encoded once (`number`, `text`).
 */
export class AttributeWriter {
  /** Where this writer's bytes begin. */
  protected readonly start: number;

  /** Attributes written into `w` (by default wherever the span being written goes). */
  constructor(w: ProtoWriter = out) {
    out = w;
    this.start = w.pos;
  }

  /** A string attribute; nothing when undefined. */
  str(key: string, value: string | undefined): this {
    if (value !== undefined) writeKeyValue(SPAN_ATTRIBUTES, key, value);
    return this;
  }

  /** A number attribute; nothing when undefined. */
  num(key: string, value: number | undefined): this {
    if (value !== undefined) writeKeyValue(SPAN_ATTRIBUTES, key, value);
    return this;
  }

  bool(key: string, value: boolean | undefined): this {
    if (value !== undefined) writeKeyValue(SPAN_ATTRIBUTES, key, value);
    return this;
  }

  strs(key: string, values: readonly string[]): this {
    writeKeyValue(SPAN_ATTRIBUTES, key, values);
    return this;
  }

  /** A value of a client-chosen key (the request's `trace` field), whatever its type. */
  clientValue(key: string, value: Scalar): this {
    writeKeyValue(SPAN_ATTRIBUTES, key, value);
    return this;
  }

  /**
   * A number new each time, under a key encoded once (`attributeKey`); nothing when undefined. Written here rather
   * than through writeKeyValue: these run several times per span, and its type dispatch cost ~0.2 µs a request.
   */
  number(key: AttributeKey, value: number | undefined): this {
    if (value === undefined) return this;
    const kv = out.begin(SPAN_ATTRIBUTES);
    const any = out.bytes(key).begin(2);
    if (Number.isSafeInteger(value)) out.int64(3, value);
    else out.double(4, Number.isFinite(value) ? value : 0);
    out.end(any).end(kv);
    return this;
  }

  /** A string new each time (an id), under a key encoded once (`attributeKey`). */
  text(key: AttributeKey, value: string): this {
    const kv = out.begin(SPAN_ATTRIBUTES);
    const any = out.bytes(key).begin(2);
    out.string(1, value).end(any).end(kv);
    return this;
  }

  /** The span's name (Span field 5), for a span shape (span-shapes.ts) that carries it. */
  spanName(name: string): this {
    out.string(5, name);
    return this;
  }

  /** Attributes another writer wrote (`fragment()`): a span shape. */
  raw(fragment: Uint8Array): this {
    out.bytes(fragment);
    return this;
  }

  /** What this writer wrote, taken out of the buffer: to be added to other lists with `raw`. */
  fragment(): Uint8Array {
    return out.take(this.start);
  }
}

/** An attribute key's bytes (KeyValue field 1: tag, length, UTF-8), encoded once for attributes written each time. */
export type AttributeKey = Uint8Array & { readonly attributeKey: true };

export function attributeKey(key: string): AttributeKey {
  const w = new ProtoWriter(64);
  return w.string(1, key).take() as AttributeKey;
}

/** Trace and span ids as 32-bit words, most significant first (no hex text on the way). */
export interface SpanIds {
  /** The trace id's four words. */
  t0: number;
  t1: number;
  t2: number;
  t3: number;
  /** The span id's two words. */
  s0: number;
  s1: number;
}

export interface SpanHeader {
  ids: SpanIds;
  /** The parent's span id (its `s0`, `s1`), if any. */
  parent: SpanIds | undefined;
  /** Unset when the span's shape (span-shapes.ts) carries the name. */
  name: string | undefined;
  /** OTLP span kind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  /** Unix ms. */
  startMs: number;
  endMs: number;
}

/**
 * One Span message being written into `w`, tagged as a ScopeSpans span (field 2): its header at once, then its
 * attributes (the AttributeWriter methods), then `finish`. An end before the start is clamped to it.
 */
export class SpanWriter extends AttributeWriter {
  /** Where the span's length goes (after its tag at `start`). */
  private readonly lengthAt: number;

  constructor(w: ProtoWriter, h: SpanHeader) {
    super(w);
    openWriter = w;
    openAt = this.start;
    this.lengthAt = w.beginLarge(2);
    const { ids, parent } = h;
    w.id128(1, ids.t0, ids.t1, ids.t2, ids.t3).id64(2, ids.s0, ids.s1);
    if (parent !== undefined) w.id64(4, parent.s0, parent.s1);
    if (h.name !== undefined) w.string(5, h.name);
    w.int64(6, h.kind).unixNanos(7, h.startMs).unixNanos(8, Math.max(h.endMs, h.startMs));
  }

  /**
   * Closes the span (`error` sets status ERROR with that message), its bytes left in place in the writer; returns
   * where they begin (its tag).
   */
  finish(error: string | undefined): number {
    if (error !== undefined) {
      const status = out.begin(15);
      out.string(2, error).int64(3, 2);
      out.end(status);
    }
    out.endLarge(this.lengthAt);
    openWriter = undefined;
    return this.start;
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
  let start = out.pos;
  const resource = out.begin(1);
  for (const [key, value] of Object.entries(envelope.resource)) writeKeyValue(RESOURCE_ATTRIBUTES, key, value);
  out.end(resource);
  const resourceBytes = out.take(start);
  start = out.pos;
  const scope = out.begin(1);
  out.string(1, envelope.scope.name).string(2, envelope.scope.version);
  out.end(scope);
  return { resource: resourceBytes, scope: out.take(start) };
}

/** Bytes to leave free in front of a batch's spans for `frameSpans` to write the envelope there. */
export function envelopeRoom(frame: ExportFrame): number {
  return frame.resource.length + frame.scope.length + 2 * (1 + 5);
}

/**
 * One ExportTraceServiceRequest around the spans `w` holds from `room` (written there by SpanWriter, tagged): the
 * frame's resource and scope are written in the room in front of them. The result is a view of `w`'s buffer.
 */
export function frameSpans(w: ProtoWriter, frame: ExportFrame, room: number): Uint8Array {
  const end = w.pos;
  const spansSize = end - room;
  const scopeSpans = frame.scope.length + spansSize;
  const resourceSpans = frame.resource.length + 1 + varintSize(scopeSpans) + scopeSpans;
  const header = 1 + varintSize(resourceSpans) + frame.resource.length + 1 + varintSize(scopeSpans) + frame.scope.length;
  const start = room - header;
  w.pos = start;
  w.tag(1, 2).varint(resourceSpans).bytes(frame.resource).tag(2, 2).varint(scopeSpans).bytes(frame.scope);
  w.pos = end;
  return w.written(start);
}
