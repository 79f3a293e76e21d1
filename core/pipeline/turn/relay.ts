/**
 * Relays an opened upstream stream to the client: the events read before the first output, then the rest as it
 * arrives. While waiting on the upstream an idle timeout runs (paused while the client is reading, so a slow client
 * is never blamed on the upstream); when it expires the upstream request is aborted and the stream ends with an
 * in-band 524 `timeout` — the response already started, so there is no retry and no fallback. How the stream ended
 * is reported once, for endpoint health and statistics.
 */
import { GatewayError, toGatewayError } from "../../errors.ts";
import type { EventStream, StreamEvent } from "../../model/events.ts";
import { watch } from "../../util/watchdog.ts";
import type { OpenedStream } from "./attempt.ts";
import { Observers, type StreamOutcome } from "../outcome.ts";

/** How a relayed stream ended (not reported when the client went away first). */
export interface RelayEnd {
  /** The in-band failure, when there was one. */
  error: GatewayError | undefined;
  /** Output tokens from the last usage event (0 when the upstream sent none). */
  outputTokens: number;
  /** `performance.now()` ms. */
  endedAt: number;
}

export interface RelayOptions {
  idleTimeoutMs: number;
  /** Rewrites an event on the way out (the `start` event gets our id, the requested model and the tier). */
  stamp(event: StreamEvent): StreamEvent;
  onEnd(end: RelayEnd): void;
  /** `debug.echo_upstream_body`: sent first. */
  upstreamBody?: () => unknown;
}

/** The client-facing stream of an opened upstream stream; observers run inside the relay's own loop. */
export function relay(opened: OpenedStream, options: RelayOptions): StreamOutcome {
  const observers = new Observers();
  return {
    kind: "stream",
    events: relayEvents(opened, options, observers),
    observe: (observer) => observers.add(observer),
    // The client left before the first frame: stop the upstream; what it already sent is still metered.
    abandon: () =>
      observers.abandon(() => {
        opened.abort(new GatewayError("timeout", "Client closed the request", { status: 408 }));
        void opened.rest.return?.()?.catch(() => undefined);
      }, opened.buffered),
    trailer: {},
  };
}

async function* relayEvents(opened: OpenedStream, options: RelayOptions, observers: Observers): EventStream {
  if (observers.started) return; // abandoned before it was read
  observers.started = true;
  const list = observers.list;
  const count = list.length;
  // Stamps, then lets each observer see (and maybe replace) the event, in the order they were attached.
  const out = (event: StreamEvent): StreamEvent => {
    event = options.stamp(event);
    for (let i = 0; i < count; i++) event = list[i]!.event(event);
    return event;
  };
  const seen = (event: StreamEvent): StreamEvent => {
    for (let i = 0; i < count; i++) event = list[i]!.event(event);
    return event;
  };
  // Built only when the timeout fires (an Error captures a stack: too costly for every stream).
  let idle: GatewayError | undefined;
  // The upstream is aborted with `idle` as the reason; an adapter honouring its signal (the contract) then ends
  // its stream with that error (or throws it). No per-chunk race: this loop is the hot path of every stream.
  const timer = watch(options.idleTimeoutMs, () => {
    idle = idleError(options.idleTimeoutMs);
    opened.abort(idle);
  });
  timer.pause();
  let outputTokens = 0;
  let failure: GatewayError | undefined;
  let ended = false;
  try {
    if (options.upstreamBody) yield seen({ type: "debug", upstreamBody: options.upstreamBody() });
    for (const event of opened.buffered) {
      if (event.type === "usage") outputTokens = event.usage.output.total;
      yield out(event);
    }
    for (;;) {
      timer.touch();
      let step: IteratorResult<StreamEvent>;
      try {
        step = await opened.rest.next();
      } catch (thrown) {
        failure = idle ?? toGatewayError(thrown);
        ended = true;
        if (!idle) throw thrown;
        yield seen({ type: "error", error: idle });
        return;
      }
      timer.pause();
      if (step.done) {
        if (!idle) break;
        // The upstream stopped because we aborted it: the stream ends with the timeout, not silently.
        failure = idle;
        ended = true;
        yield seen({ type: "error", error: idle });
        return;
      }
      const event = step.value;
      if (event.type === "usage") outputTokens = event.usage.output.total;
      else if (event.type === "error") {
        failure = idle ?? event.error;
        ended = true;
        yield failure === event.error ? out(event) : seen({ type: "error", error: failure });
        return;
      }
      yield out(event);
    }
    ended = true;
  } catch (thrown) {
    // A source that throws (rather than sending an `error` event) still failed: the observers record it as such.
    for (let i = 0; i < count; i++) list[i]!.fail(thrown);
    throw thrown;
  } finally {
    timer.cancel();
    if (ended) options.onEnd({ error: failure, outputTokens, endedAt: performance.now() });
    // The client went away (or a later stage stopped reading): stop the upstream rather than let it run on.
    else void opened.rest.return?.()?.catch(() => undefined);
    for (let i = 0; i < count; i++) list[i]!.end();
  }
}

/** The in-band 524 of a stream that stalled after it started (no retry is possible any more). */
function idleError(ms: number): GatewayError {
  return new GatewayError("timeout", `Upstream stream stalled for more than ${ms} ms`, { status: 524, metadata: { provider_code: "idle_timeout" } });
}
