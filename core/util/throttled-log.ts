/** Error logging for a dependency that may fail on every request: one line per interval, with the count skipped. */
import type { Logger } from "pino";

/**
 * Returns a logger function that writes at most once per `intervalMs` per message. `err` may be a function that makes the error: it runs only when a line is written, so a caller on a hot path
 * (every dropped span) pays for an Error and its stack only once per interval.
 */
export function throttledError(logger: Logger, intervalMs = 10_000): (err: unknown, message: string) => void {
  const last = new Map<string, { at: number; skipped: number }>();
  return (err, message) => {
    const now = Date.now();
    const seen = last.get(message);
    if (seen && now - seen.at < intervalMs) {
      seen.skipped++;
      return;
    }
    logger.error({ err: typeof err === "function" ? (err as () => unknown)() : err, skipped: seen?.skipped ?? 0 }, message);
    last.set(message, { at: now, skipped: 0 });
  };
}
