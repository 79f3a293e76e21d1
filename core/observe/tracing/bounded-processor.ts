/**
 * A span processor with a bounded queue that never works inside `span.end()`: ending a span only appends it (or
 * counts it dropped when the queue is full); exports run later from a timer, one at a time, `batchSize` spans
 * each. The SDK's BatchSpanProcessor serialises a whole batch inside the `end()` that fills it (ms of pause on the
 * request's path) and drops spans with only a debug log; here every drop is counted in a metric. What a span is
 * stays the exporter's business: the gateway queues spans already encoded as OTLP protobuf (span-recorder.ts), an
 * SDK `SpanExporter` would take `ReadableSpan`s.
 */
import { ExportResultCode, type ExportResult } from "@opentelemetry/core";

/** The part of the SDK's `SpanExporter` the queue uses, for spans of any shape. */
export interface BatchExporter<S> {
  export(spans: S[], done: (result: ExportResult) => void): void;
  shutdown(): Promise<void>;
}

export interface ProcessorSettings {
  queueSize: number;
  batchSize: number;
  /** How long spans may wait before a batch that is not full goes out. */
  delayMs: number;
}

export interface ProcessorCounters {
  dropped(reason: "queue_full" | "export_failed", count: number): void;
  exported(count: number): void;
}

export class BoundedSpanProcessor<S> {
  private queue: S[] = [];
  private timer: Timer | undefined;
  /** The delay the pending timer was set with. */
  private timerMs = 0;
  private exporting: Promise<void> | undefined;
  private closed = false;

  constructor(
    private readonly exporter: BatchExporter<S>,
    private readonly settings: ProcessorSettings,
    private readonly counters: ProcessorCounters,
  ) {}

  onEnd(span: S): void {
    if (this.closed) return;
    if (this.queue.length >= this.settings.queueSize) {
      this.counters.dropped("queue_full", 1);
      return;
    }
    this.queue.push(span);
    this.schedule(this.queue.length >= this.settings.batchSize ? 0 : this.settings.delayMs);
  }

  /** Exports everything queued, a batch at a time, giving up after `timeoutMs`. */
  async forceFlush(timeoutMs = 2_000): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    while ((this.queue.length > 0 || this.exporting) && performance.now() < deadline) {
      await Promise.race([this.exporting ?? this.exportBatch(), Bun.sleep(Math.max(1, deadline - performance.now()))]);
    }
  }

  /** Flushes for at most two seconds (a collector that is down must not hold a shutdown), then closes the exporter. */
  async shutdown(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    await this.forceFlush(2_000);
    this.closed = true;
    if (this.queue.length > 0) this.counters.dropped("export_failed", this.queue.length);
    this.queue = [];
    await Promise.race([this.exporter.shutdown(), Bun.sleep(500)]).catch(() => undefined);
  }

  private schedule(ms: number): void {
    if (this.exporting) return; // the export in flight schedules the next one when it ends
    // A pending timer that fires as soon or sooner stays: every span of a full queue would otherwise replace it.
    if (this.timer && this.timerMs <= ms) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerMs = ms;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.exportBatch();
    }, ms);
    this.timer.unref?.();
  }

  private exportBatch(): Promise<void> {
    if (this.exporting || this.queue.length === 0) return this.exporting ?? Promise.resolve();
    const batch = this.queue.splice(0, this.settings.batchSize);
    this.exporting = new Promise<void>((resolve) => {
      try {
        this.exporter.export(batch, (result) => {
          if (result.code === ExportResultCode.SUCCESS) this.counters.exported(batch.length);
          else this.counters.dropped("export_failed", batch.length);
          resolve();
        });
      } catch {
        this.counters.dropped("export_failed", batch.length);
        resolve();
      }
    }).finally(() => {
      this.exporting = undefined;
      if (this.queue.length > 0 && !this.closed) this.schedule(this.queue.length >= this.settings.batchSize ? 0 : this.settings.delayMs);
    });
    return this.exporting;
  }
}
