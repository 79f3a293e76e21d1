/**
 * How credit limits fail when the kv cannot be reached: closed, with a 503 (spending past a limit cannot be taken
 * back), and one error line per interval rather than one per request.
 */
import type { Logger } from "pino";
import { GatewayError } from "../errors.ts";
import { throttledError } from "../util/throttled-log.ts";

export function creditsUnavailable(): GatewayError {
  return new GatewayError("provider_unavailable", "Service temporarily unavailable: credit limits cannot be checked right now", {
    status: 503,
    retryable: true,
    retryAfter: 1,
    metadata: { availability: { code: "temporarily_unavailable", retryable: true, retry_after: 1 } },
  });
}

/** One throttled error logger per process logger, made on first use. */
const errorLoggers = new WeakMap<Logger, (err: unknown, message: string) => void>();

export function limitsErrorLog(logger: Logger): (err: unknown, message: string) => void {
  let log = errorLoggers.get(logger);
  if (!log) errorLoggers.set(logger, (log = throttledError(logger)));
  return log;
}
