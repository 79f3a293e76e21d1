/**
 * Timeouts for upstream attempts and streams from ONE shared ticker: an idle-between-chunks timeout is re-armed on
 * every event, and a timer per chunk (or per stream) would cost far more than bumping a counter. Touching a watch
 * only increments it; the ticker notices the change and restarts that watch's clock, so the per-event cost is two
 * field writes. The ticker stops a few ticks after the last watch ended, so an idle gateway has no timer at all,
 * and a busy one never re-creates it. Precision: a timeout fires up to one tick (≤ a quarter of it) late.
 */

/** A running timeout: `touch` re-arms it from now, `pause` holds it (e.g. while the client reads), `cancel` ends it. */
export interface WatchHandle {
  touch(): void;
  pause(): void;
  cancel(): void;
}

interface Entry {
  timeoutMs: number;
  fire: () => void;
  /** Bumped by `touch`; the ticker restarts the clock when it sees a new value. */
  touches: number;
  seen: number;
  /** `performance.now()` when the ticker last saw activity (or the watch began). */
  since: number;
  paused: boolean;
}

const watched = new Set<Entry>();
let ticker: ReturnType<typeof setInterval> | undefined;
let period = 0;
/** Ticks in a row with nothing watched; the ticker stops after a few, not at once (requests come one by one). */
let idleTicks = 0;

function tick(): void {
  const now = performance.now();
  for (const entry of watched) {
    if (entry.paused || entry.touches !== entry.seen) {
      entry.seen = entry.touches;
      entry.since = now;
      continue;
    }
    if (now - entry.since < entry.timeoutMs) continue;
    watched.delete(entry);
    entry.fire();
  }
  idleTicks = watched.size === 0 ? idleTicks + 1 : 0;
  if (idleTicks >= 8 && ticker) {
    clearInterval(ticker);
    ticker = undefined;
  }
}

function ensureTicker(timeoutMs: number): void {
  // A quarter of the shortest timeout keeps the overshoot small; never faster than 5 ms nor slower than 250 ms.
  const wanted = Math.max(5, Math.min(250, Math.floor(timeoutMs / 4)));
  idleTicks = 0;
  if (ticker && period <= wanted) return;
  if (ticker) clearInterval(ticker);
  period = wanted;
  ticker = setInterval(tick, period);
  ticker.unref?.();
}

/** Calls `onExpire` once, `timeoutMs` after the last `touch` (or now), unless paused or cancelled. */
export function watch(timeoutMs: number, onExpire: () => void): WatchHandle {
  const entry: Entry = { timeoutMs, fire: onExpire, touches: 0, seen: 0, since: performance.now(), paused: false };
  watched.add(entry);
  ensureTicker(timeoutMs);
  return {
    touch: () => {
      entry.paused = false;
      entry.touches++;
    },
    pause: () => void (entry.paused = true),
    cancel: () => void watched.delete(entry),
  };
}

/** How many timeouts are armed (tests check that nothing leaks). */
export function watchedCount(): number {
  return watched.size;
}
