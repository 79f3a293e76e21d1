/**
 * Long work on the event loop, cut into slices: one `Slices` per piece of work (a request's count, a compression, a
 * guardrail check); the work calls `next()` between small steps, and once it has run SLICE_MS it gives the loop back
 * (`setImmediate`), so `/health` and other tenants' requests are served in between. Cheap to call often: it reads the
 * clock and, in most calls, returns at once. Several async strands of one piece of work may share one.
 */

/**
 * CPU a piece of work may hold the loop for before it yields. Measured with the o200k counter (its steps take ~1 ms
 * of prose, up to ~10 ms of random letters): counting 2 MB, the most CPU spent between two turns of the loop was
 * 20 ms for prose and 40 ms for random letters, on 2 cores at load ~10, where everything took ~4× its idle time;
 * `npm run bench:stall` shows `/health` p99 with such work in flight.
 */
export const SLICE_MS = 10;

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

export class Slices {
  private started = performance.now();

  /** True when `next()` would yield: a hot loop checks this first and awaits only then (an await costs a turn of the microtask queue). */
  due(): boolean {
    return performance.now() - this.started >= SLICE_MS;
  }

  /** Yields to the event loop when this work has held it for SLICE_MS since it last did. */
  async next(): Promise<void> {
    if (performance.now() - this.started < SLICE_MS) return;
    await yieldToLoop();
    this.started = performance.now();
  }
}
