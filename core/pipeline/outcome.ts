/**
 * What the pipeline and every model turn end in: a whole canonical response, or a live canonical
 * event stream that owns its completion. Only the HTTP edge renders an outcome (JSON, SSE); the batch worker encodes
 * its results from one; a failure is a thrown GatewayError, never an outcome.
 */
import type { EventStream, StreamEvent } from "../model/events.ts";
import type { CanonicalResponse } from "../model/response.ts";

export interface ResponseOutcome {
  kind: "response";
  response: CanonicalResponse;
  /** Filled by the edge before it encodes the response. */
  trailer?: Trailer;
}

/**
 * What the encoder writes that only the end of the answer settles, handed to it as data (README "What a request
 * carries"): the routing metadata when the client opted in, and the container the request's server tools used last.
 */
export interface Trailer {
  /** `service_metadata` (spec "Routing metadata object"). */
  serviceMetadata?: Record<string, unknown>;
  /** Messages' `container`: after a `restart` the fresh one, the one the client can go on using. */
  container?: { id: string; expiresAt: number };
}

/**
 * A stream relayed as it arrives, never buffered. Whoever needs to see its events or its end (metering, accounting,
 * credit holds) asks the stream itself with `observe`, before it is read: the observers run inside the stream's own
 * loop (no extra generator per observer), and each one's `end` runs exactly once however the stream ends.
 */
export interface StreamOutcome {
  kind: "stream";
  events: EventStream;
  observe(observer: StreamObserver): void;
  /**
   * Says the events will never be read (the client left before the first frame went out): the source is released
   * and the observers end, once. A no-op once reading began: the stream's own loop ends them then.
   */
  abandon(): void;
  /**
   * Filled by the edge as the stream closes (when its `finish` or `error` event passes, and again when its source
   * ends), so it is settled before the encoder writes the frames that show it.
   */
  readonly trailer: Trailer;
}

export type Outcome = ResponseOutcome | StreamOutcome;

/**
 * A synchronous per-event hook. `event` may return a replacement; `fail` sees a thrown failure before it propagates;
 * `end` runs once when the stream finishes for any reason (done, error, client gone).
 */
export interface StreamObserver {
  event(event: StreamEvent): StreamEvent;
  fail(thrown: unknown): void;
  end(): void;
}

/** The observers of one stream, run in the order they were attached. */
export class Observers {
  readonly list: StreamObserver[] = [];
  /** Reading began, or the stream was abandoned before it: either way its loop must not run (again). */
  started = false;

  add(observer: StreamObserver): void {
    if (this.started) throw new Error("a stream's observers must be attached before it is read");
    this.list.push(observer);
  }

  /**
   * Ends a stream nobody read: `release` frees what feeds it (first, so the observers of an inner stream end before
   * these), then the observers see `seen` (events already received) and end.
   */
  abandon(release: () => void, seen: readonly StreamEvent[] = []): void {
    if (this.started) return;
    this.started = true;
    release();
    for (const observer of this.list) {
      for (const event of seen) observer.event(event);
      observer.end();
    }
  }
}

/**
 * What a plugin hook handed back, checked before anything relies on it: a module's bug becomes a 500 naming it
 * (inside the pipeline, so the turns it already made are still billed), never a TypeError further out.
 */
export function checkedOutcome(value: unknown, source: string): Outcome {
  const outcome = (typeof value === "object" && value !== null ? value : {}) as { kind?: unknown; response?: unknown; events?: { [Symbol.asyncIterator]?: unknown }; observe?: unknown; abandon?: unknown };
  const valid =
    (outcome.kind === "response" && typeof outcome.response === "object" && outcome.response !== null) ||
    (outcome.kind === "stream" && typeof outcome.events?.[Symbol.asyncIterator] === "function" && typeof outcome.observe === "function" && typeof outcome.abandon === "function");
  if (!valid) throw new Error(`${source} did not return an outcome (a response outcome, or a stream built with streamOutcome)`);
  return value as Outcome;
}

export function responseOutcome(response: CanonicalResponse): ResponseOutcome {
  return { kind: "response", response };
}

/**
 * A stream outcome over any event source; observers get their own loop around it. `release` frees what feeds the
 * source when the stream is abandoned unread (by default the source's own `return`).
 */
export function streamOutcome(source: EventStream, release?: () => void): StreamOutcome {
  const observers = new Observers();
  const events = observed(source, observers);
  return {
    kind: "stream",
    events,
    observe: (observer) => observers.add(observer),
    abandon: () => observers.abandon(release ?? (() => void source[Symbol.asyncIterator]().return?.()?.catch(() => undefined))),
    trailer: {},
  };
}

/** A stream transformed by `transform` (a plugin's stream hook): what the outer observers see is the transformed one. */
export function mapStream(outcome: StreamOutcome, transform: (events: EventStream) => EventStream): StreamOutcome {
  return streamOutcome(transform(outcome.events), () => outcome.abandon());
}

async function* observed(source: EventStream, observers: Observers): EventStream {
  if (observers.started) return; // abandoned before it was read
  observers.started = true;
  const list = observers.list;
  if (list.length === 0) {
    yield* source;
    return;
  }
  try {
    for await (let event of source) {
      for (const observer of list) event = observer.event(event);
      yield event;
    }
  } catch (thrown) {
    for (const observer of list) observer.fail(thrown);
    throw thrown;
  } finally {
    for (const observer of list) observer.end();
  }
}
