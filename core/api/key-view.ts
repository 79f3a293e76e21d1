/** The public shape of an API key (reference b9): money in USD, timestamps ISO 8601. */
import type { ApiKeyRecord } from "../store/types.ts";
import { roundUsd } from "../accounting/money.ts";

export function keyView(record: ApiKeyRecord, pendingUsage: number): Record<string, unknown> {
  const usage = roundUsd(record.usage + pendingUsage);
  return {
    hash: record.hash,
    name: record.name,
    label: record.label,
    disabled: record.disabled,
    is_management_key: record.isManagement,
    limit: record.limit,
    limit_remaining: record.limit === null ? null : roundUsd(Math.max(0, record.limit - usage)),
    limit_reset: record.limitReset,
    usage,
    created_at: new Date(record.createdAt).toISOString(),
    updated_at: new Date(record.updatedAt).toISOString(),
    expires_at: record.expiresAt === null ? null : new Date(record.expiresAt).toISOString(),
    workspace_id: record.workspaceId,
    creator_user_id: null,
  };
}

