/** Abort-aware waiting for the simulator's latency and chunk delays. */

/**
 * Resolves after `ms`, or rejects with the signal's reason once it aborts. `ms <= 0` resolves without a timer, so
 * simulated streams without delays cost no timers at all.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Work the simulator may do in one go before it lets the event loop turn (other requests, `/health`, timers). */
const SLICE_MS = 4;
let sliceStart = 0;
let turned = true;

/**
 * Gives the event loop a turn when the simulator has kept it busy for a slice (4 ms) without one, as a network
 * upstream's next bytes would: answers made entirely in microtasks ran back to back without letting any other
 * request in (000-item batch on the simulator froze `/health` for 12 s). A light load never
 * waits; a heavy one is cut into slices.
 */
export function yieldIfBusy(): Promise<void> | undefined {
  const now = performance.now();
  if (turned) {
    // A turn happened since the last check: a new slice starts; a probe tells when the loop turns next.
    turned = false;
    sliceStart = now;
    setImmediate(markTurned);
    return undefined;
  }
  if (now - sliceStart < SLICE_MS) return undefined;
  return new Promise((resolve) => setImmediate(resolve));
}

function markTurned(): void {
  turned = true;
}
