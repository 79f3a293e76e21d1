/**
 * The bounded export queue, holding spans where they were written: in export batches (ProtoWriters with room left in
 * front for the request envelope), so a span is written once, in place, and a batch is sent as it is. Ending a span
 * never exports: it counts the span in (or, when `queueSize` spans already wait, rewinds it away and counts it
 * dropped); a batch is sealed at `batchSize` spans, and exports run later from a timer, one at a time. A failed
 * export counts its spans dropped; the queue goes on. The SDK's BatchSpanProcessor serialises a whole batch inside
 * the `end()` that fills it (ms of pause on the request's path) and drops spans with only a debug log.
 */
import { envelopeRoom, frameSpans, type ExportFrame } from "./otlp-proto.ts";
import { ProtoWriter } from "./proto-writer.ts";
import type { SpanSink } from "./span-recorder.ts";

/** Sends one export request body; `done(true)` once the collector accepted it. Never throws. */
export interface BodySender {
  send(body: Uint8Array, done: (ok: boolean) => void): void;
  /** Waits for the sends in flight. */
  shutdown(): Promise<void>;
}

export interface QueueSettings {
  queueSize: number;
  batchSize: number;
  /** How long spans may wait before a batch that is not full goes out. */
  delayMs: number;
}

export interface ProcessorCounters {
  dropped(reason: "queue_full" | "export_failed", count: number): void;
  exported(count: number): void;
}

/** One export batch: its writer (spans from `room` on) and how many spans it holds. */
interface Batch {
  w: ProtoWriter;
  spans: number;
}

/** Batches kept for reuse (their buffers' pages stay faulted in: a fresh ~100 KB buffer per export cost ~1 %). */
const SPARE_BATCHES = 4;

export class SpanQueue implements SpanSink {
  private current: Batch;
  private readonly sealed: Batch[] = [];
  private readonly spare: Batch[] = [];
  /** Spans waiting: in `sealed` and `current`. */
  private queued = 0;
  private readonly room: number;
  private timer: Timer | undefined;
  /** The delay the pending timer was set with. */
  private timerMs = 0;
  private exporting: Promise<void> | undefined;
  private closed = false;

  constructor(
    private readonly sender: BodySender,
    private readonly frame: ExportFrame,
    private readonly settings: QueueSettings,
    private readonly counters: ProcessorCounters,
  ) {
    this.room = envelopeRoom(frame);
    this.current = this.fresh();
  }

  get writer(): ProtoWriter {
    return this.current.w;
  }

  ended(start: number): void {
    if (this.closed || this.queued >= this.settings.queueSize) {
      this.current.w.pos = start;
      if (!this.closed) this.counters.dropped("queue_full", 1);
      return;
    }
    this.queued++;
    if (++this.current.spans >= this.settings.batchSize) {
      this.seal();
      this.schedule(0);
    } else this.schedule(this.settings.delayMs);
  }

  /** Exports everything queued, a batch at a time, giving up after `timeoutMs`. */
  async forceFlush(timeoutMs = 2_000): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    while ((this.queued > 0 || this.exporting) && performance.now() < deadline) {
      await Promise.race([this.exporting ?? this.exportBatch(), Bun.sleep(Math.max(1, deadline - performance.now()))]);
    }
  }

  /** Flushes for at most two seconds (a collector that is down must not hold a shutdown), then closes the sender. */
  async shutdown(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    await this.forceFlush(2_000);
    this.closed = true;
    if (this.queued > 0) this.counters.dropped("export_failed", this.queued);
    this.queued = 0;
    this.sealed.length = 0;
    this.current = this.fresh();
    await Promise.race([this.sender.shutdown(), Bun.sleep(500)]).catch(() => undefined);
  }

  private fresh(): Batch {
    const batch = this.spare.pop() ?? { w: new ProtoWriter(64 * 1024), spans: 0 };
    batch.w.pos = this.room;
    batch.spans = 0;
    return batch;
  }

  private seal(): void {
    this.sealed.push(this.current);
    this.current = this.fresh();
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
    if (this.exporting || this.queued === 0) return this.exporting ?? Promise.resolve();
    // Timers and flushes run between requests' span builds: the batch being written holds whole spans only.
    if (this.sealed.length === 0) this.seal();
    const batch = this.sealed.shift()!;
    this.queued -= batch.spans;
    this.exporting = new Promise<void>((resolve) => {
      const done = (ok: boolean) => {
        if (ok) this.counters.exported(batch.spans);
        else this.counters.dropped("export_failed", batch.spans);
        // The body was read (or given up on): its buffer can take spans again.
        if (this.spare.length < SPARE_BATCHES) this.spare.push(batch);
        resolve();
      };
      try {
        this.sender.send(frameSpans(batch.w, this.frame, this.room), done);
      } catch {
        done(false);
      }
    }).finally(() => {
      this.exporting = undefined;
      if (this.queued > 0 && !this.closed) this.schedule(this.sealed.length > 0 ? 0 : this.settings.delayMs);
    });
    return this.exporting;
  }
}
