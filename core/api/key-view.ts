/**
 * The public shape of an API key (the peer SDK's key schemas): money in USD, timestamps ISO 8601.
 * Spending comes from the usage ledger (`./key-spending.ts`); the BYOK figures are what BYOK credentials paid at list
 * price (README "Bring your own keys"), and `external_user` / `creator_user_id` are null because it has no users (README "API keys").
 */
import { settingView } from "../cache/setting-body.ts";
import type { UsagePeriods } from "../accounting/usage-periods.ts";
import type { ApiKeyRecord } from "../store/types.ts";
import { roundUsd } from "../accounting/money.ts";

/** What a key's view needs besides its record: unflushed lifetime spending and the period totals. */
export interface KeySpending {
  pendingUsage: number;
  periods: UsagePeriods;
  /** What BYOK credentials paid for the key's requests (list price): lifetime and per period; absent = 0. */
  byok?: UsagePeriods & { total: number };
}

/** A key no BYOK credential ever paid for. */
export const NO_BYOK_USAGE = Object.freeze({ byok_usage: 0, byok_usage_daily: 0, byok_usage_weekly: 0, byok_usage_monthly: 0 });

export function keyView(record: ApiKeyRecord, spending: KeySpending): Record<string, unknown> {
  const usage = roundUsd(record.usage + spending.pendingUsage);
  return {
    hash: record.hash,
    name: record.name,
    label: record.label,
    disabled: record.disabled,
    is_management_key: record.isManagement,
    limit: record.limit,
    limit_remaining: record.limit === null ? null : roundUsd(Math.max(0, record.limit - usage)),
    limit_reset: record.limitReset,
    include_byok_in_limit: record.includeByokInLimit ?? false,
    // Only when the key has its own strict-mode default (README "Strict mode").
    ...(record.strict !== undefined ? { strict: record.strict } : {}),
    // Only when the key has its own response-cache setting (README "Response cache").
    ...(record.cache !== undefined ? { cache: settingView(record.cache) } : {}),
    usage,
    usage_daily: roundUsd(spending.periods.daily),
    usage_weekly: roundUsd(spending.periods.weekly),
    usage_monthly: roundUsd(spending.periods.monthly),
    ...(spending.byok
      ? {
          byok_usage: roundUsd(spending.byok.total),
          byok_usage_daily: roundUsd(spending.byok.daily),
          byok_usage_weekly: roundUsd(spending.byok.weekly),
          byok_usage_monthly: roundUsd(spending.byok.monthly),
        }
      : NO_BYOK_USAGE),
    created_at: new Date(record.createdAt).toISOString(),
    updated_at: new Date(record.updatedAt).toISOString(),
    expires_at: record.expiresAt === null ? null : new Date(record.expiresAt).toISOString(),
    workspace_id: record.workspaceId,
    creator_user_id: null,
    external_user: null,
  };
}
