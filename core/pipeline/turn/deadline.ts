/**
 * An upstream call's time bound (its length: timeouts.ts), shared by the model turn's attempts (attempt.ts) and image
 * calls (core/images/generate.ts): when it expires the call's signal is aborted and the race against `expired` fails
 * with a retryable 408, so the caller moves on to the next endpoint.
 */
import { GatewayError } from "../../errors.ts";
import { watch } from "../../util/watchdog.ts";

export interface Deadline {
  /** Rejects with the 408 when the bound expires; never resolves. Race the call against it. */
  expired: Promise<never>;
  cancel(): void;
}

/** Arms the bound on `controller` (the call's own abort controller); `stream` words the 408 (first byte or answer). */
export function attemptDeadline(timeoutMs: number, stream: boolean, controller: AbortController): Deadline {
  let expire!: (error: GatewayError) => void;
  const expired = new Promise<never>((_, reject) => (expire = reject));
  expired.catch(() => undefined);
  const timer = watch(timeoutMs, () => {
    // Built only when it fires: an Error captures a stack, too costly to make for every attempt.
    const timeout = timeoutError(stream, timeoutMs);
    controller.abort(timeout);
    expire(timeout);
  });
  return { expired, cancel: () => timer.cancel() };
}

/** The 408 of an attempt that produced nothing in time: retryable, the next endpoint may answer. */
function timeoutError(stream: boolean, ms: number): GatewayError {
  const message = stream ? `Upstream sent no output within ${ms} ms` : `Upstream did not answer within ${ms} ms`;
  return new GatewayError("timeout", message, { status: 408, retryable: true, metadata: { provider_code: stream ? "first_byte_timeout" : "request_timeout" } });
}
