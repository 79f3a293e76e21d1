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
