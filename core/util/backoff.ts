/** Retry pacing: full-jitter exponential backoff and an abortable sleep. */

/** Full jitter: a uniform wait in [0, min(max, base·2^retry)) — spreads retries so failing clients do not sync up. */
export function fullJitter(retry: number, baseMs: number, maxMs: number, random: () => number): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** retry);
  return Math.floor(random() * ceiling);
}

/** Resolves after `ms`, or rejects with the signal's reason once it aborts (a client gone mid-backoff). */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
