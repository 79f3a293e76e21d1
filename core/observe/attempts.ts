/**
 * Reads retries and fallbacks off a request's attempts (`ctx.attempts`, recorded by the model turn in order), so
 * counting them needs no hook inside the walk: an attempt right after a failed one is a retry when it went to the
 * same endpoint and a fallback when it went elsewhere (another provider, or a fallback model). An attempt after a
 * successful one starts a new turn (an agent-loop step, a plugin's second turn) and is neither.
 */
import type { Attempt } from "../pipeline/context.ts";

/** How one attempt ended: `success`, or the error type (`refusal` for a refusal that moved to the next model). */
export function attemptOutcome(attempt: Attempt): string {
  if (attempt.errorType !== undefined) return attempt.errorType;
  return attempt.status === undefined || attempt.status === 200 ? "success" : "error";
}

export type AttemptStep = "first" | "retry" | "fallback";

/** What led to the attempt at `index`: the first of its turn, a retry of the same endpoint, or a fallback. */
export function attemptStep(attempts: readonly Attempt[], index: number): AttemptStep {
  const previous = index > 0 ? attempts[index - 1] : undefined;
  if (!previous || previous.errorType === undefined) return "first";
  const current = attempts[index]!;
  return previous.model === current.model && previous.providerId === current.providerId ? "retry" : "fallback";
}
