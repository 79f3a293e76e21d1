/**
 * Start in any order (README "Operations: store outages"): a store that cannot be reached at start-up is tried again
 * with capped exponential backoff, one log line per attempt, until it answers or the limit (`STORE_WAIT_SECONDS`)
 * passes. Then start-up fails with a `StoreStartError`: one line naming the store's variable, printed without a stack.
 * A store that answers but refuses us (a wrong password, a bad URL, a failed migration) fails at once.
 */
import type { Logger } from "pino";
import { storeLabel, StoreUnreachableError, type StoreName } from "./unavailable.ts";

/** The first retry comes quickly (a database booting beside us), later ones at most this far apart. */
const FIRST_DELAY_MS = 250;
const MAX_DELAY_MS = 5_000;

/** Start-up could not open a store: server.ts prints the message alone and exits non-zero. */
export class StoreStartError extends Error {
  override readonly name = "StoreStartError";
}

export interface StoreWaitOptions {
  /** Give up once waiting longer would pass this; 0 tries once. */
  limitMs: number;
  logger: Logger;
  /** Told which store start-up waits for (undefined once it answered): readiness names it meanwhile. */
  onWait?: (store: StoreName | undefined) => void;
  sleep?: (ms: number) => Promise<void>;
}

/** Opens a store, waiting for it while it is unreachable. */
export async function openWhenReachable<T>(store: StoreName, open: () => Promise<T>, options: StoreWaitOptions): Promise<T> {
  const sleep = options.sleep ?? Bun.sleep;
  const started = Date.now();
  for (let attempt = 1; ; attempt++) {
    try {
      const opened = await open();
      if (attempt > 1) options.logger.info({ store, attempts: attempt, waited_ms: Date.now() - started }, `start-up: ${storeLabel(store)} answered`);
      options.onWait?.(undefined);
      return opened;
    } catch (error) {
      if (!(error instanceof StoreUnreachableError)) throw new StoreStartError(error instanceof Error ? error.message : String(error), { cause: error });
      const waited = Date.now() - started;
      const delay = Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** (attempt - 1));
      if (waited + delay > options.limitMs) {
        throw new StoreStartError(`${error.message}; still unreachable after ${seconds(waited)} s, giving up (STORE_WAIT_SECONDS=${seconds(options.limitMs)})`, { cause: error });
      }
      options.onWait?.(store);
      options.logger.warn({ store, attempt, retry_in_ms: delay, reason: error.message }, `start-up: waiting for ${storeLabel(store)}`);
      await sleep(delay);
    }
  }
}

function seconds(ms: number): number {
  return Math.round(ms / 100) / 10;
}
