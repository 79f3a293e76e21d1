/** Tells the idempotency service when a stream ends in an in-band error, so that reply is not kept for retries. */
import type { Outcome } from "../pipeline/outcome.ts";

export function watchForFailure(outcome: Outcome, markFailed: () => void): Outcome {
  if (outcome.kind === "stream") {
    outcome.observe({
      event: (event) => {
        if (event.type === "error") markFailed();
        return event;
      },
      fail: markFailed,
      end: () => {},
    });
  }
  return outcome;
}
