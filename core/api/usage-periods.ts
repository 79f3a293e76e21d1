/**
 * Rolls daily usage up into weeks (starting Monday, as `usage_weekly`) or calendar months, all in UTC: the store
 * sums per day on both dialects alike and the calendar lives here.
 */
import type { DailyUsage } from "../store/types.ts";

export type Period = "day" | "week" | "month";

const DAY_MS = 86_400_000;

export interface UsagePoint {
  /** The period's first day, `YYYY-MM-DD` (UTC). */
  period: string;
  group: string;
  requests: number;
  input_tokens: number;
  output_tokens: number;
  cost: number;
}

/** The first day (days since epoch) of the period holding `day`. */
export function periodStart(day: number, period: Period): number {
  if (period === "day") return day;
  if (period === "week") {
    // 1970-01-01 was a Thursday: (day + 3) mod 7 is the days since Monday.
    return day - (((day + 3) % 7) + 7) % 7;
  }
  const date = new Date(day * DAY_MS);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1) / DAY_MS;
}

export function rollUp(days: readonly DailyUsage[], period: Period, names: ReadonlyMap<string, string> = new Map()): UsagePoint[] {
  const points = new Map<string, UsagePoint & { start: number }>();
  for (const d of days) {
    const start = periodStart(d.day, period);
    const group = names.get(d.group) ?? d.group;
    const key = `${start}\u0000${group}`;
    let point = points.get(key);
    if (!point) points.set(key, (point = { start, period: isoDay(start), group, requests: 0, input_tokens: 0, output_tokens: 0, cost: 0 }));
    point.requests += d.requests;
    point.input_tokens += d.inputTokens;
    point.output_tokens += d.outputTokens;
    point.cost += d.cost;
  }
  return [...points.values()]
    .sort((a, b) => a.start - b.start || (a.group < b.group ? -1 : a.group > b.group ? 1 : 0))
    .map(({ start: _start, cost, ...rest }) => ({ ...rest, cost: Math.round(cost * 1e9) / 1e9 }));
}

export function isoDay(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}
