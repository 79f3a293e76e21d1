/**
 * A refusal known before anything reached the client moves on to the next fallback model (spec "Messages request":
 * fallbacks are tried when the primary fails *or refuses*). The refused attempt was generated, so the upstream
 * bills it: its usage is billed too, at the refusing endpoint's prices, and the request's credit
 * hold is extended by that cost BEFORE the next attempt starts — the hold then still covers the next attempt's
 * worst case, so concurrent requests can never spend past the key's limit. When the key cannot afford the
 * extension, the refusal itself is the answer (it is one, and it is paid for already).
 */
import { GatewayError } from "../../errors.ts";
import type { StreamEvent } from "../../model/events.ts";
import type { FinishReason } from "../../model/response.ts";
import { emptyUsage, type Usage } from "../../model/usage.ts";
import type { Endpoint } from "../../routing/catalog.ts";
import type { RequestContext } from "../context.ts";
import type { AttemptOutcome, OpenedStream } from "./attempt.ts";
import type { Failure } from "./final-error.ts";
import { priceFor, withImageCount } from "./meter.ts";

/** A refusal the client has not seen yet: a whole result that refused, or a stream whose first output is one. */
export function refused(outcome: AttemptOutcome): boolean {
  if (outcome.kind === "response") return isRefusal(outcome.response.finish.reason);
  return outcome.stream.buffered.some((e) => e.type === "refusal-delta" || (e.type === "finish" && isRefusal(e.finish.reason)));
}

function isRefusal(reason: string): boolean {
  return reason === "refusal" || reason === "content_filter";
}

/**
 * Bills the refused attempt and makes room for the next one. Resolves true when the walk may move on (the attempt
 * is metered, recorded as a failure and released), false when the refusal must be handed to the client instead
 * (the credit hold could not grow; nothing was metered: handing it on meters it).
 */
export async function settleRefusal(ctx: RequestContext, endpoint: Endpoint, outcome: AttemptOutcome, failures: Failure[], drainMs: number): Promise<boolean> {
  // A stream reports its usage at its end: read the rest of the refusal (short) to learn what it cost.
  if (outcome.kind === "stream") await drain(outcome.stream, drainMs);
  const { usage, finish } = outcome.kind === "response" ? { usage: outcome.response.usage, finish: outcome.response.finish.reason } : streamUsage(outcome.stream.buffered);
  const billed = outcome.kind === "response" ? withImageCount(usage, outcome.response.parts.filter((p) => p.type === "image").length) : usage;
  const cost = priceFor(endpoint, billed, finish);
  let paid = false;
  try {
    paid = await ctx.bill.payForDiscarded(billed, cost);
  } catch (err) {
    // Fail closed: no further attempt without a hold that covers it.
    ctx.deps.logger.error({ err, id: ctx.generationId }, "routing: credit hold could not be extended after a refusal; returning the refusal");
  }
  if (!paid) return false;
  record(ctx, endpoint, outcome, failures);
  return true;
}

/** Reads what is left of a refused stream into its buffered events, for at most `ms`. */
async function drain(stream: OpenedStream, ms: number): Promise<void> {
  let timer: Timer | undefined;
  const expired = new Promise<"expired">((resolve) => (timer = setTimeout(() => resolve("expired"), ms)));
  try {
    for (;;) {
      const step = await Promise.race([stream.rest.next(), expired]);
      if (step === "expired" || step.done) return;
      // Kept (an error too): when the refusal is handed on after all, the client sees the stream as it came.
      stream.buffered.push(step.value);
      if (step.value.type === "error") return;
    }
  } catch {
    // A refusal whose stream then broke: what it reported so far is what is billed.
  } finally {
    clearTimeout(timer);
  }
}

function streamUsage(events: readonly StreamEvent[]): { usage: Usage; finish: FinishReason } {
  let usage = emptyUsage();
  let finish: FinishReason = "refusal";
  let images = 0;
  for (const event of events) {
    if (event.type === "usage") usage = event.usage;
    else if (event.type === "finish") finish = event.finish.reason;
    else if (event.type === "image") images++;
  }
  return { usage: withImageCount(usage, images), finish };
}

/** Records the refused attempt (for `service_metadata`) and releases a refused stream upstream. */
function record(ctx: RequestContext, endpoint: Endpoint, outcome: AttemptOutcome, failures: Failure[]): void {
  const attempt = ctx.attempts.at(-1);
  const error = new GatewayError("refusal", `${endpoint.model.id} refused the request`, { status: 400, metadata: { provider_name: endpoint.provider.id } });
  if (attempt) {
    attempt.errorType = "refusal";
    failures.push({ attempt, error });
  }
  if (outcome.kind === "stream") {
    outcome.stream.abort(error);
    void outcome.stream.rest.return?.()?.catch(() => undefined);
  }
  ctx.deps.logger.debug({ id: ctx.generationId, model: endpoint.model.id, provider: endpoint.provider.id }, "routing: refusal, trying the next fallback model");
}
