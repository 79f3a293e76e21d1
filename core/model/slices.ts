/**
 * Long work on the event loop, cut into slices: one `Slices` per piece of work (a request's count, a compression);
 * the work calls `next()` between small steps, and every SLICE_MS of CPU it gives the loop back (`setImmediate`), so
 * `/health` and other tenants' requests are served in between. Cheap to call often: it reads the clock and, in most
 * calls, returns at once.
 */

/** CPU a piece of work may hold the loop for before it yields. With the o200k counter's steps (o200k.ts, at most
 * ~4 ms each) a slice holds the loop about 10–15 ms on an idle 2-core machine; `npm run bench:stall` shows `/health`
 * p99 with such work in flight. */
export const SLICE_MS = 10;

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

export class Slices {
  private started = performance.now();

  /** Yields to the event loop when this work has held it for SLICE_MS since it last did. */
  async next(): Promise<void> {
    if (performance.now() - this.started < SLICE_MS) return;
    await yieldToLoop();
    this.started = performance.now();
  }
}
