/**
 * Bun Workers share the gateway's process and have no heap limit of their own (Bun ignores `resourceLimits`): a
 * sandbox script can hold gigabytes in shell variables, a hostile document can make its parser allocate them. So a
 * pool watches the process's resident memory while jobs run and, when it has grown by more than the budget since they
 * started, asks the pool to stop one (worker-pool.ts picks the longest-running: growing by a gigabyte takes seconds).
 *
 * A worker cannot report its own heap: its timers do not fire while it runs synchronous code (only microtasks do).
 */

/** Sampling period: reading RSS costs microseconds; allocating 1 GiB takes a busy script about 2 s. */
const SAMPLE_MS = 100;
/** After stopping a job, give its memory time to be returned before judging again. */
const COOLDOWN_SAMPLES = 3;

export class MemoryGuard {
  private timer: ReturnType<typeof setInterval> | undefined;
  private baseline = 0;
  private cooldown = 0;

  constructor(
    private readonly budgetBytes: number,
    private readonly onExceeded: () => void,
    private readonly rss: () => number = () => process.memoryUsage.rss(),
  ) {}

  /** Called whenever the number of running jobs changes: samples only while some run. */
  setBusy(running: number): void {
    if (running > 0 && !this.timer) {
      this.baseline = this.rss();
      this.cooldown = 0;
      this.timer = setInterval(() => this.sample(), SAMPLE_MS);
      this.timer.unref();
    } else if (running === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  private sample(): void {
    const now = this.rss();
    // Memory given back (a stopped worker, a collected heap) lowers the reference: growth is measured from the least.
    this.baseline = Math.min(this.baseline, now);
    if (this.cooldown > 0) {
      this.cooldown--;
      return;
    }
    if (now - this.baseline > this.budgetBytes) {
      this.cooldown = COOLDOWN_SAMPLES;
      this.onExceeded();
    }
  }

  stop(): void {
    this.setBusy(0);
  }
}
