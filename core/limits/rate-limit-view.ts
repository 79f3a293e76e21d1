/**
 * `GET /key` `rate_limit`: the limit the calling key's inference requests actually meet — its own setting, else the
 * config default (`limits.rate_limit`), else none — in the peer's shape (`requests`, `interval`, `note`; the
 * peer's SDK requires all three) plus our exact fields (`tokens`, `interval_seconds`, `source`). `requests` is -1
 * when requests are not limited: the value the peer's document gives for "no such limit".
 */
import type { RateLimitSetting } from "../config/routing-limits.ts";

/** Which setting applies: the key's own, the config default, or none. */
export type RateLimitSource = "key" | "default" | "none";

export interface RateLimitView {
  requests: number;
  tokens: number | null;
  interval_seconds: number | null;
  /** The interval as the peer writes it (`10s`, `1m`, `1h`); `none` when nothing is limited. */
  interval: string;
  note: string;
  source: RateLimitSource;
}

/** Describes the rate limit of a key; a management key makes no inference requests, so none applies to it. */
export function rateLimitView(own: RateLimitSetting | null | undefined, fallback: RateLimitSetting | null, isManagement: boolean): RateLimitView {
  const setting = isManagement ? null : (own ?? fallback);
  if (!setting) {
    const note = isManagement ? "Management keys make no inference requests; no rate limit applies." : "No rate limit applies to this key.";
    return { requests: -1, tokens: null, interval_seconds: null, interval: "none", note, source: "none" };
  }
  const source: RateLimitSource = own ? "key" : "default";
  const interval = intervalText(setting.intervalSeconds);
  const limits = [setting.requests !== null ? `${setting.requests} requests` : "", setting.tokens !== null ? `${setting.tokens} tokens` : ""].filter(Boolean);
  const origin = source === "key" ? "this key's own limit" : "the gateway's default limit";
  return {
    requests: setting.requests ?? -1,
    tokens: setting.tokens,
    interval_seconds: setting.intervalSeconds,
    interval,
    note: `${limits.join(" and ")} per ${interval} (${origin}).`,
    source,
  };
}

/** Seconds as the largest whole unit: 86400 → `1d`, 3600 → `1h`, 60 → `1m`, 90 → `90s`. */
export function intervalText(seconds: number): string {
  for (const [unit, size] of [["d", 86_400], ["h", 3_600], ["m", 60]] as const) {
    if (seconds >= size && seconds % size === 0) return `${seconds / size}${unit}`;
  }
  return `${seconds}s`;
}
