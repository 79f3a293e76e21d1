/**
 * The limit fields of a key as `GET /key` and `/keys` show them: `limit_remaining` is the limit minus what the key
 * spent in its current window (the same counter the credit reservations check, so the two always agree), and the
 * key's own `rate_limit` (null when the config default applies).
 */
import type { CreditLedger } from "./credits.ts";
import type { ApiKeyRecord } from "../store/types/keys.ts";
import { roundUsd } from "../accounting/money.ts";

/** `limit_remaining`, `usage_window` and `rate_limit` for one key. */
export async function limitFields(credits: CreditLedger, record: ApiKeyRecord): Promise<Record<string, unknown>> {
  const rate = record.rateLimit ?? null;
  const rateLimit = rate && { requests: rate.requests, tokens: rate.tokens, interval_seconds: rate.intervalSeconds };
  if (record.limit === null) return { rate_limit: rateLimit };
  const spent = await credits.spentInWindow(record);
  return { limit_remaining: roundUsd(Math.max(0, record.limit - spent)), usage_window: roundUsd(spent), rate_limit: rateLimit };
}

