/**
 * Credit windows: daily, weekly and monthly windows start at midnight UTC, weeks on
 * Monday; a key without `limit_reset` has one lifetime window.
 */
import type { LimitReset } from "../store/types/keys.ts";

/** One credit window: `[start, end)` in Unix ms (`end` null for the lifetime window), and an id for kv keys. */
export interface CreditWindow {
  id: string;
  start: number;
  end: number | null;
}

const DAY_MS = 86_400_000;

/** The window containing `now`. */
export function windowOf(reset: LimitReset | null, now: number): CreditWindow {
  if (reset === null) return { id: "all", start: 0, end: null };
  const date = new Date(now);
  const midnight = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate());
  if (reset === "daily") return { id: `d${midnight}`, start: midnight, end: midnight + DAY_MS };
  if (reset === "weekly") {
    // getUTCDay: Sunday = 0; days since Monday is (day + 6) mod 7.
    const start = midnight - ((date.getUTCDay() + 6) % 7) * DAY_MS;
    return { id: `w${start}`, start, end: start + 7 * DAY_MS };
  }
  const start = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
  return { id: `m${start}`, start, end: Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1) };
}
