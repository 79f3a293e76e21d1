/**
 * Finished spans, written directly as OTLP protobuf (otlp-proto.ts). A request's spans are built once it has ended,
 * when every start, end and attribute is known, so nothing needs the SDK's live `Span` (its per-attribute checks,
 * clock reads and processor calls cost ~10 µs a span, measured) nor its `ReadableSpan` (an object tree the exporter
 * would walk again): each span is one small byte array handed to the bounded queue, which the exporter frames into
 * a request body. Sampling is decided once per trace, at its root.
 */
import { SpanWriter } from "./otlp-proto.ts";

/** W3C trace flags: bit 0, sampled. */
const SAMPLED = 1;

/** Where a span hangs: the ids of its trace and parent, as lowercase hex. */
export interface SpanParent {
  traceId: string;
  spanId: string;
}

/** A remote parent (from `traceparent` or the request's `trace` field), with the caller's sampling decision. */
export interface RemoteParent extends SpanParent {
  traceFlags: number;
}

export interface SpanSpec {
  name: string;
  /** OTLP span kind: 1 internal, 2 server, 3 client. */
  kind: 1 | 2 | 3;
  /** Unix ms. */
  startMs: number;
  endMs: number;
}

/** Where finished spans go (the bounded queue). */
export interface SpanSink {
  onEnd(span: Uint8Array): void;
}

/**
 * Random ids from a pool refilled by `crypto.getRandomValues` 4 KiB at a time: a span id is then one hex slice of
 * a buffer, with the randomness of the platform's CSPRNG.
 */
class IdPool {
  private readonly pool = Buffer.alloc(4096);
  private at = this.pool.length;

  hex(bytes: number): string {
    if (this.at + bytes > this.pool.length) {
      crypto.getRandomValues(this.pool);
      this.at = 0;
    }
    const id = this.pool.toString("hex", this.at, (this.at += bytes));
    // All zeros is the invalid id of W3C trace context; one in 2^64 draws, redrawn rather than sent.
    return /^0+$/.test(id) ? this.hex(bytes) : id;
  }
}

/**
 * A span being written: add its attributes (AttributeWriter methods), then `end` it. Spans are written one at a
 * time: end one before opening the next.
 */
export class OpenSpan extends SpanWriter {
  constructor(
    private readonly sink: SpanSink,
    spec: SpanSpec,
    /** Where this span's children hang. */
    readonly context: SpanParent,
    parentSpanId: string | undefined,
  ) {
    super({ traceId: context.traceId, spanId: context.spanId, parentSpanId, name: spec.name, kind: spec.kind, startMs: spec.startMs, endMs: spec.endMs });
  }

  /** Hands the span to the queue; `error` (a message) sets its status to ERROR. */
  end(error?: string): SpanParent {
    this.sink.onEnd(this.finish(error));
    return this.context;
  }
}

export class SpanRecorder {
  private readonly ids = new IdPool();

  constructor(
    private readonly sink: SpanSink,
    private readonly sampleRatio: number,
  ) {}

  /**
   * Opens a trace's root span under `parent` (a remote span), or as a new trace (of `traceId` when given); undefined
   * when the trace is not sampled: a parent's flag decides, otherwise the configured ratio.
   */
  root(spec: SpanSpec, parent: RemoteParent | undefined, traceId: string | undefined): OpenSpan | undefined {
    const sampled = parent ? (parent.traceFlags & SAMPLED) !== 0 : this.sampleRatio >= 1 || Math.random() < this.sampleRatio;
    if (!sampled) return undefined;
    const context: SpanParent = { traceId: parent?.traceId ?? traceId ?? this.ids.hex(16), spanId: this.ids.hex(8) };
    return new OpenSpan(this.sink, spec, context, parent?.spanId);
  }

  child(spec: SpanSpec, parent: SpanParent): OpenSpan {
    return new OpenSpan(this.sink, spec, { traceId: parent.traceId, spanId: this.ids.hex(8) }, parent.spanId);
  }
}
