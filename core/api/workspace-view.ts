/**
 * A workspace and its budgets as the peer SDK reads them (`Workspace`, `WorkspaceBudget` of `@openrouter/sdk`), with
 * the gateway's own settings beside them (`settings`). Fields for features a self-hosted gateway does not have are
 * their off values (README "Workspaces").
 */
import type { Workspace, WorkspaceBudget } from "../store/types/workspaces.ts";

const iso = (ms: number) => new Date(ms).toISOString();

/** `defaultGuardrailId`: the first guardrail assigned to the workspace, "" when none is (the SDK's field is a string). */
export function workspaceView(w: Workspace, defaultGuardrailId: string | undefined) {
  const s = w.settings;
  return {
    id: w.id,
    name: w.name,
    slug: w.slug,
    description: w.description,
    created_at: iso(w.createdAt),
    updated_at: w.updatedAt === null ? null : iso(w.updatedAt),
    created_by: null,
    default_guardrail_id: defaultGuardrailId ?? "",
    default_text_model: s.default_text_model ?? null,
    default_image_model: s.default_image_model ?? null,
    default_provider_sort: s.default_provider_sort ?? null,
    disabled_server_tools: s.disabled_server_tools ?? null,
    include_byok_in_budgets: w.includeByokInBudgets,
    io_logging_api_key_ids: null,
    io_logging_sampling_rate: 0,
    is_data_discount_logging_enabled: false,
    is_observability_broadcast_enabled: false,
    is_observability_io_logging_enabled: false,
    settings: {
      allowed_models: s.allowed_models ?? null,
      allowed_providers: s.allowed_providers ?? null,
      plugins: s.plugins ?? null,
      rate_limit: s.rate_limit ?? null,
      generation_retention_days: s.generation_retention_days ?? null,
      cache: s.cache ?? null,
    },
  };
}

/** One budget; `spent` is what the current window has spent (ours, beside the SDK's fields). */
export function budgetView(b: WorkspaceBudget, spent: number | undefined) {
  return {
    id: `${b.workspaceId}:${b.interval}`,
    workspace_id: b.workspaceId,
    limit_usd: b.limitUsd,
    reset_interval: b.interval === "lifetime" ? null : b.interval,
    interval: b.interval,
    ...(spent === undefined ? {} : { usage_usd: spent }),
    created_at: iso(b.createdAt),
    updated_at: iso(b.updatedAt),
  };
}
