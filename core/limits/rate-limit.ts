/**
 * Per-key request and token rate limits (GCRA through `kv.rateLimit`: one atomic Lua script on Redis, so exact
 * across processes). Tokens are charged up front like hosted APIs do: the prompt estimate plus the requested
 * `max_tokens`. A gateway-issued 429 carries Retry-After and X-RateLimit-Limit / -Remaining / -Reset (the reset as
 * Unix milliseconds); successful replies carry none of them.
 */
import type { RateLimitSetting } from "../config/routing-limits.ts";
import { GatewayError } from "../errors.ts";
import type { Kv, RateLimitResult } from "../kv/kv.ts";

/** A denial: the error to throw and the headers to send with it. */
export interface RateLimitDenial {
  error: GatewayError;
  headers: Record<string, string>;
}

/** Checks both limits of one key; resolves undefined when the request may proceed. Rejects when the kv fails. */
export async function checkRateLimits(kv: Kv, keyHash: string, setting: RateLimitSetting, tokens: number, now: number): Promise<RateLimitDenial | undefined> {
  const periodMs = setting.intervalSeconds * 1000;
  const checks: Array<Promise<[string, RateLimitResult]>> = [];
  if (setting.requests !== null) {
    checks.push(kv.rateLimit(`gw:rl:req:${keyHash}`, setting.requests, periodMs, 1).then((r) => ["requests", r]));
  }
  if (setting.tokens !== null) {
    // A request larger than the whole budget needs a full bucket rather than being refused forever.
    const cost = Math.min(Math.max(1, tokens), setting.tokens);
    checks.push(kv.rateLimit(`gw:rl:tok:${keyHash}`, setting.tokens, periodMs, cost).then((r) => ["tokens", r]));
  }
  const results = await Promise.all(checks);
  const denied = results.filter(([, r]) => !r.allowed).sort(([, a], [, b]) => b.retryAfterMs - a.retryAfterMs)[0];
  if (!denied) return undefined;
  const [kind, result] = denied;
  const retryAfter = Math.max(1, Math.ceil(result.retryAfterMs / 1000));
  const error = new GatewayError("rate_limit_exceeded", `Rate limit exceeded: ${result.limit} ${kind} per ${setting.intervalSeconds} s for this key; retry after ${retryAfter} s`, {
    retryAfter,
    metadata: { rate_limit: { kind, limit: result.limit, interval_seconds: setting.intervalSeconds, retry_after: retryAfter } },
  });
  return {
    error,
    headers: {
      "x-ratelimit-limit": String(result.limit),
      "x-ratelimit-remaining": String(result.remaining),
      "x-ratelimit-reset": String(now + result.resetMs),
    },
  };
}
