/**
 * Finished spans, written directly as OTLP protobuf (otlp-proto.ts) into the export batch that will carry them
 * (span-queue.ts): no per-span byte array, no copy into the body later. A request's spans are built once it has
 * ended, when every start, end and attribute is known, so nothing needs the SDK's live `Span` (its per-attribute
 * checks, clock reads and processor calls cost ~10 µs a span, measured) nor its `ReadableSpan` (an object tree the
 * exporter would walk again). Ids stay 32-bit words from the random pool to the bytes (hex only when asked for).
 * Sampling is decided once per trace, at its root.
 */
import { SpanWriter, type SpanIds } from "./otlp-proto.ts";
import type { ProtoWriter } from "./proto-writer.ts";

/** W3C trace flags: bit 0, sampled. */
export const SAMPLED = 1;

/** Where a span hangs: the ids of its trace and of the span itself; `traceId` and `spanId` as lowercase hex. */
export class SpanParent implements SpanIds {
  constructor(
    readonly t0: number,
    readonly t1: number,
    readonly t2: number,
    readonly t3: number,
    readonly s0: number,
    readonly s1: number,
  ) {}

  get traceId(): string {
    return hex8(this.t0) + hex8(this.t1) + hex8(this.t2) + hex8(this.t3);
  }

  get spanId(): string {
    return hex8(this.s0) + hex8(this.s1);
  }
}

function hex8(word: number): string {
  return word.toString(16).padStart(8, "0");
}

/** The words of a lowercase hex id (validated by the caller: parent.ts). */
function words(hex: string, count: number): number[] {
  return Array.from({ length: count }, (_, i) => Number.parseInt(hex.slice(i * 8, i * 8 + 8), 16));
}

/** A remote parent (from `traceparent` or the request's `trace` field), with the caller's sampling decision. */
export interface RemoteParent {
  /** Lowercase hex, 32 characters. */
  traceId: string;
  /** Lowercase hex, 16 characters. */
  spanId: string;
  traceFlags: number;
}

export interface SpanSpec {
  /** Unset when the span's shape (span-shapes.ts) carries the name. */
  name: string | undefined;
  /** OTLP span kind: 1 internal, 2 server, 3 client. */
  kind: 1 | 2 | 3;
  /** Unix ms. */
  startMs: number;
  endMs: number;
}

/** Where finished spans go (the bounded queue, span-queue.ts). */
export interface SpanSink {
  /** The writer the next span is written into. */
  readonly writer: ProtoWriter;
  /** The span written into `writer` from `start` (its tag) to the writer's position is finished. */
  ended(start: number): void;
}

/**
 * Random 32-bit words from a pool refilled by `crypto.getRandomValues` 4 KiB at a time, with the randomness of the
 * platform's CSPRNG.
 */
class IdPool {
  private readonly pool = new Uint32Array(1024);
  private at = this.pool.length;

  word(): number {
    if (this.at === this.pool.length) {
      crypto.getRandomValues(this.pool);
      this.at = 0;
    }
    return this.pool[this.at++]!;
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
    parent: SpanIds | undefined,
  ) {
    super(sink.writer, { ids: context, parent, name: spec.name, kind: spec.kind, startMs: spec.startMs, endMs: spec.endMs });
  }

  /** Hands the span to the queue; `error` (a message) sets its status to ERROR. */
  end(error?: string): SpanParent {
    this.sink.ended(this.finish(error));
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
   * Opens a trace's root span under `parent` (a remote span), or as a new trace (of `traceId`, lowercase hex, when
   * given); undefined when the trace is not sampled: a parent's flag decides, otherwise the configured ratio.
   */
  root(spec: SpanSpec, parent: RemoteParent | undefined, traceId: string | undefined): OpenSpan | undefined {
    const sampled = parent ? (parent.traceFlags & SAMPLED) !== 0 : this.sampleRatio >= 1 || Math.random() < this.sampleRatio;
    if (!sampled) return undefined;
    const given = parent?.traceId ?? traceId;
    let s0 = 0, s1 = 0;
    while ((s0 | s1) === 0) [s0, s1] = [this.ids.word(), this.ids.word()];
    let context: SpanParent;
    if (given !== undefined) {
      const [t0, t1, t2, t3] = words(given, 4) as [number, number, number, number];
      context = new SpanParent(t0, t1, t2, t3, s0, s1);
    } else {
      // All zeros is the invalid id of W3C trace context: one in 2^128 draws, redrawn rather than sent.
      let t0 = 0, t1 = 0, t2 = 0, t3 = 0;
      while ((t0 | t1 | t2 | t3) === 0) [t0, t1, t2, t3] = [this.ids.word(), this.ids.word(), this.ids.word(), this.ids.word()];
      context = new SpanParent(t0, t1, t2, t3, s0, s1);
    }
    let remote: SpanIds | undefined;
    if (parent) {
      const [p0, p1] = words(parent.spanId, 2) as [number, number];
      remote = { t0: 0, t1: 0, t2: 0, t3: 0, s0: p0, s1: p1 };
    }
    return new OpenSpan(this.sink, spec, context, remote);
  }

  child(spec: SpanSpec, parent: SpanParent): OpenSpan {
    // A span id of all zeros is invalid: one in 2^64 draws, redrawn rather than sent.
    let s0 = this.ids.word();
    let s1 = this.ids.word();
    while ((s0 | s1) === 0) {
      s0 = this.ids.word();
      s1 = this.ids.word();
    }
    return new OpenSpan(this.sink, spec, new SpanParent(parent.t0, parent.t1, parent.t2, parent.t3, s0, s1), parent);
  }
}
