/**
 * `GET /key`: the calling key as the peer SDK's `getCurrentKeyMetadata` reads it — the key view (`./key-view.ts`)
 * plus what only this operation carries: the rate limit that actually applies, and the account facts a self-hosted
 * gateway has as constants (README "API keys": no free tier, no organisations, no data regions, no free-model quota).
 */
import type { Principal } from "../auth/principal.ts";
import { limitsOf } from "../config/routing-limits.ts";
import type { Deps } from "../deps.ts";
import { limitFields } from "../limits/key-view.ts";
import { rateLimitView } from "../limits/rate-limit-view.ts";
import { readOneWithSpending } from "./key-spending.ts";
import { keyView, NO_BYOK_USAGE } from "./key-view.ts";

/** Fields with one value in every self-hosted gateway. */
const ACCOUNT_CONSTANTS = Object.freeze({
  is_free_tier: false,
  organization_id: null,
  // Requests go wherever the operator's providers are; no region restriction exists.
  allowed_data_regions: ["global"],
  // No free-model daily quota exists: -1 is the peer's "no such limit" (as for `rate_limit.requests`).
  free_model_daily_requests: { limit: -1, remaining: -1, used: 0 },
});

export async function currentKeyView(deps: Deps, principal: Principal): Promise<Record<string, unknown>> {
  const defaultRateLimit = limitsOf(deps.config).rateLimit;
  const common = { ...ACCOUNT_CONSTANTS, is_provisioning_key: principal.isManagement };
  if (!principal.record) return { ...adminKeyView(principal), ...common, rate_limit: rateLimitView(null, defaultRateLimit, true) };
  // The principal's record may come from the auth cache; usage must be read fresh.
  const row = await readOneWithSpending(deps, principal.keyHash);
  const record = row?.record ?? principal.record;
  const spending = row?.spending ?? { pendingUsage: deps.ledger.pendingUsage(record.hash), periods: { daily: 0, weekly: 0, monthly: 0 } };
  return {
    ...keyView(record, spending),
    // limit_remaining from the credit window the reservations use, so it matches what the next request sees.
    ...(await limitFields(deps.credits, record)),
    ...common,
    rate_limit: rateLimitView(record.rateLimit, defaultRateLimit, record.isManagement),
  };
}

/** The env admin key exists only in configuration: a management key that never spends. */
function adminKeyView(principal: Principal): Record<string, unknown> {
  return {
    hash: principal.keyHash,
    name: principal.name,
    label: "GATEWAY_ADMIN_KEY",
    disabled: false,
    is_management_key: true,
    limit: null,
    limit_remaining: null,
    limit_reset: null,
    include_byok_in_limit: false,
    usage: 0,
    usage_daily: 0,
    usage_weekly: 0,
    usage_monthly: 0,
    ...NO_BYOK_USAGE,
    expires_at: null,
    workspace_id: principal.workspaceId,
    creator_user_id: null,
    external_user: null,
  };
}
