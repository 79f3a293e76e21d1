/**
 * The fetch for one-shot upstream calls (a whole JSON reply, read at once): the gateway's socket client (fetch.ts)
 * for a call that is alone, Bun's own fetch for calls that have company while it has room, ours again beyond that.
 *
 * Why two: Bun's fetch does its socket work (connect, write, read, parse) on its own HTTP thread, so a one-shot
 * call costs the JavaScript thread less; on a 2-core machine whose system calls are dear that is 30–55% more
 * non-streamed throughput (README "Performance"). But it holds at most `BUN_CONFIG_MAX_HTTP_REQUESTS` (default 256)
 * requests in flight per process, read once when the process starts, and queues the rest unseen: a slow upstream
 * would stall every call behind it. So calls overflow to our client once half that cap is in use (the other half
 * stays free for anything else in the process that fetches), and streams never use Bun's fetch at all: its body
 * reader costs 64–256 KB per open body (connection.ts).
 */
import type { FetchFunction } from "../registry/helpers.ts";

/** Bun's default cap on fetch requests in flight per process. */
export const BUN_FETCH_DEFAULT_CAP = 256;

export interface OneShotFetchParts {
  /** Bun's fetch (tests pass a recording fake). */
  bunFetch: FetchFunction;
  /** The gateway's own client, taking what Bun's fetch has no room for. */
  own: FetchFunction;
  /** Calls allowed on `bunFetch` at once. */
  limit: number;
}

export type OneShotFetch = FetchFunction & {
  /** Calls currently on Bun's fetch. */
  inFlight(): number;
};

/** Bun's in-flight cap for this process: `BUN_CONFIG_MAX_HTTP_REQUESTS` as the process started, else 256. */
export function bunFetchCap(env: Record<string, string | undefined>): number {
  const configured = Number(env.BUN_CONFIG_MAX_HTTP_REQUESTS);
  return Number.isInteger(configured) && configured > 0 ? configured : BUN_FETCH_DEFAULT_CAP;
}

export function createOneShotFetch(parts: OneShotFetchParts): OneShotFetch {
  let inFlight = 0;
  let ownInFlight = 0;
  const release = () => {
    inFlight--;
  };
  const releaseOwn = () => {
    ownInFlight--;
  };
  const viaOwn = (input: string | URL | Request, init: RequestInit): Promise<Response> => {
    ownInFlight++;
    const pending = parts.own(input, init);
    pending.then(releaseOwn, releaseOwn);
    return pending;
  };
  const oneShot = (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    // Alone (no other one-shot call in flight; open streams do not count), a call is quicker on our client: no hand-over to another thread and back (about 0.1 ms at c=1). With
    // company, Bun's thread takes the socket work off ours; past its limit, ours again.
    if (inFlight + ownInFlight === 0 || inFlight >= parts.limit) return viaOwn(input, init);
    inFlight++;
    // Redirects are returned, not followed, as by our own client: a provider API does not redirect its POSTs, and
    // the two paths must answer alike. A one-shot reply is read right after its head, so the slot is given back
    // when the head arrives (the cap's other half absorbs the short overlap).
    let pending: Promise<Response>;
    try {
      pending = parts.bunFetch(input, init.redirect ? init : { ...init, redirect: "manual" });
    } catch (thrown) {
      release();
      return Promise.reject(thrown);
    }
    pending.then(release, release);
    return pending;
  };
  return Object.assign(oneShot, { inFlight: () => inFlight });
}
