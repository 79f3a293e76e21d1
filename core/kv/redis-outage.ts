/**
 * Which Redis failures are an outage (README "Operations: store outages"): the connection is down or not back yet,
 * a command got no reply in time, or the server cannot take commands now (loading, a read-only replica, out of
 * memory, busy with a script). Those become the 503 (core/ops/unavailable.ts); a reply error of the command itself
 * (a wrong type, a script bug) stays what it is.
 */
import { storeUnavailable } from "../ops/unavailable.ts";

const SERVER_UNAVAILABLE = /^(LOADING|READONLY|OOM|MASTERDOWN|BUSY|TRYAGAIN|CLUSTERDOWN)\b/;

/** True for a failure that says Redis is unreachable or cannot serve now. */
export function isRedisOutage(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name !== "ReplyError") return true;
  return SERVER_UNAVAILABLE.test(error.message);
}

/** Awaits a command, answering an outage with the 503. */
export async function guarded<T>(command: Promise<T>): Promise<T> {
  try {
    return await command;
  } catch (error) {
    throw isRedisOutage(error) ? storeUnavailable("redis", error) : error;
  }
}
