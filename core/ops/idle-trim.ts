/**
 * Gives memory back to the system once the gateway has been idle for a while.
 *
 * After traffic, the process keeps what the traffic made it grow: JIT code for the hot paths, heap blocks and
 * allocator pages the collector freed but did not return. That is ~20 MB of an ~90 MB process (bench/, README
 * "Performance"). When no request has arrived for `idleMs` and no stream is open, one full collection plus
 * `Bun.shrink()` (which also drops compiled code; JavaScriptCore recompiles what runs again) brings RSS back near
 * its start-up size. It runs once per idle period, never while requests keep coming, and costs the next requests
 * a re-warm-up of a few milliseconds, which is why the default waits 10 s.
 *
 * Cost on the hot path: one integer increment per request (`touch`). Idleness is checked by an unref'd timer.
 */
export interface IdleTrimOptions {
  /** Quiet time before trimming; 0 turns trimming off. */
  idleMs: number;
  /** True while work is running that a request counter does not see (open streams). */
  busy(): boolean;
  /** What a trim does; defaults to a full GC and Bun.shrink(). */
  trim?: () => void;
  /** Told after each trim (for a debug log line). */
  onTrim?: (report: TrimReport) => void;
}

export interface TrimReport {
  rssBeforeBytes: number;
  rssAfterBytes: number;
  ms: number;
}

/** How often idleness is checked, as a fraction of `idleMs` (so a trim comes between 1 and 1.25 × idleMs). */
const CHECKS_PER_PERIOD = 4;

export function releaseMemory(): void {
  Bun.gc(true);
  if (typeof Bun.shrink === "function") Bun.shrink();
}

export class IdleTrimmer {
  /** Trims done so far (tests and diagnostics). */
  trims = 0;
  private activity = 0;
  private seenActivity = 0;
  private quietSince = performance.now();
  /** Trimmed since the last activity: nothing new to give back until traffic comes again. */
  private trimmed = false;
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly options: IdleTrimOptions) {}

  /** Called once per request. */
  touch(): void {
    this.activity++;
  }

  start(): void {
    if (this.options.idleMs <= 0 || this.timer) return;
    this.quietSince = performance.now();
    this.timer = setInterval(() => this.check(), Math.max(10, Math.floor(this.options.idleMs / CHECKS_PER_PERIOD)));
    this.timer.unref?.();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private check(): void {
    const now = performance.now();
    if (this.activity !== this.seenActivity || this.options.busy()) {
      this.seenActivity = this.activity;
      this.quietSince = now;
      this.trimmed = false;
      return;
    }
    if (this.trimmed || now - this.quietSince < this.options.idleMs) return;
    this.trimmed = true;
    const rssBeforeBytes = process.memoryUsage.rss();
    (this.options.trim ?? releaseMemory)();
    this.trims++;
    this.options.onTrim?.({ rssBeforeBytes, rssAfterBytes: process.memoryUsage.rss(), ms: performance.now() - now });
  }
}
