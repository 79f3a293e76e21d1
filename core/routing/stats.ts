/**
 * Rolling latency (seconds to first byte) and throughput (output tokens per second) per endpoint, for `sort` and
 * the preferred-latency/throughput preferences. Samples are kept in memory (a ring per endpoint, so recording is
 * O(1) on the hot path); a background sync publishes this process's percentiles through the kv and reads the
 * others', so a process with too few samples of its own uses what the cluster measured.
 */
import type { Logger } from "pino";
import type { Kv } from "../kv/kv.ts";

/** Percentiles of one measure. */
export interface Percentiles {
  p50: number;
  p75: number;
  p90: number;
  p99: number;
}

/** Below this many local samples, a shared snapshot (when there is one) is preferred. */
const MIN_LOCAL_SAMPLES = 5;
const SNAPSHOT_TTL_MS = 10 * 60_000;
const PREFIX = "gw:stats:";

class Ring {
  private readonly values: Float64Array;
  private count = 0;
  private next = 0;
  private cached: Percentiles | undefined;

  constructor(size: number) {
    this.values = new Float64Array(size);
  }

  add(value: number): void {
    this.values[this.next] = value;
    this.next = (this.next + 1) % this.values.length;
    if (this.count < this.values.length) this.count++;
    this.cached = undefined;
  }

  get size(): number {
    return this.count;
  }

  /** Sorted once per change, only when someone asks (sorting requests are the rare ones). */
  percentiles(): Percentiles | undefined {
    if (this.count === 0) return undefined;
    if (!this.cached) {
      const sorted = Array.from(this.values.subarray(0, this.count)).sort((a, b) => a - b);
      const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
      this.cached = { p50: at(0.5), p75: at(0.75), p90: at(0.9), p99: at(0.99) };
    }
    return this.cached;
  }
}

interface Series {
  latency: Ring;
  throughput: Ring;
  dirty: boolean;
}

interface Snapshot {
  latency: Percentiles | null;
  throughput: Percentiles | null;
}

/** Per-endpoint rolling statistics, keyed by `EndpointProfile.key`. */
export class EndpointStats {
  private readonly local = new Map<string, Series>();
  private readonly shared = new Map<string, Snapshot>();
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly kv: Kv,
    private readonly logger: Logger,
    private readonly samples: number,
  ) {}

  recordLatency(key: string, seconds: number): void {
    if (!Number.isFinite(seconds) || seconds < 0) return;
    const series = this.series(key);
    series.latency.add(seconds);
    series.dirty = true;
  }

  recordThroughput(key: string, tokensPerSecond: number): void {
    if (!Number.isFinite(tokensPerSecond) || tokensPerSecond <= 0) return;
    const series = this.series(key);
    series.throughput.add(tokensPerSecond);
    series.dirty = true;
  }

  /** Seconds to first byte, or undefined when nobody has measured this endpoint yet. */
  latency(key: string): Percentiles | undefined {
    return this.pick(key, "latency");
  }

  /** Output tokens per second, or undefined when unmeasured. */
  throughput(key: string): Percentiles | undefined {
    return this.pick(key, "throughput");
  }

  /** Starts the periodic kv sync for these endpoint keys. */
  start(keys: readonly string[], intervalMs: number): void {
    this.timer ??= setInterval(() => void this.sync(keys), intervalMs);
    this.timer.unref?.();
    void this.sync(keys);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Publishes what changed here and reads everyone's snapshots; failures only cost freshness. */
  async sync(keys: readonly string[]): Promise<void> {
    try {
      await Promise.all(
        keys.map(async (key) => {
          const series = this.local.get(key);
          if (series?.dirty && series.latency.size + series.throughput.size >= MIN_LOCAL_SAMPLES) {
            series.dirty = false;
            const snapshot: Snapshot = { latency: series.latency.percentiles() ?? null, throughput: series.throughput.percentiles() ?? null };
            await this.kv.set(PREFIX + key, JSON.stringify(snapshot), SNAPSHOT_TTL_MS);
            return;
          }
          const raw = await this.kv.get(PREFIX + key);
          if (raw !== null) this.shared.set(key, JSON.parse(raw) as Snapshot);
        }),
      );
    } catch (error) {
      this.logger.warn({ err: error }, "routing: endpoint statistics sync failed");
    }
  }

  private series(key: string): Series {
    let series = this.local.get(key);
    if (!series) {
      series = { latency: new Ring(this.samples), throughput: new Ring(this.samples), dirty: false };
      this.local.set(key, series);
    }
    return series;
  }

  private pick(key: string, measure: "latency" | "throughput"): Percentiles | undefined {
    const ring = this.local.get(key)?.[measure];
    const shared = this.shared.get(key)?.[measure] ?? undefined;
    if (ring && (ring.size >= MIN_LOCAL_SAMPLES || !shared)) return ring.percentiles();
    return shared;
  }
}
