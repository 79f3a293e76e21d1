/**
 * The public shapes of guardrails and their assignments (the peer SDK's Guardrail, KeyAssignment; ours for the
 * workspace): snake_case, timestamps ISO 8601, the peer's stored-only fields as they were sent.
 */
import type { ApiKeyRecord, AssignmentRecord, GuardrailRecord } from "../store/types.ts";
import { OPTION_FIELDS } from "./guardrail-body.ts";

const iso = (ms: number) => new Date(ms).toISOString();

export function guardrailView(g: GuardrailRecord, usage?: number): Record<string, unknown> {
  const options: Record<string, unknown> = {};
  for (const field of OPTION_FIELDS) options[field] = g.options[field] ?? null;
  options.include_byok_in_budgets = g.options.include_byok_in_budgets === true;
  return {
    id: g.id,
    name: g.name,
    description: g.description,
    limit_usd: g.limitUsd,
    reset_interval: g.resetInterval,
    ...(usage !== undefined ? { usage_usd: usage } : {}),
    allowed_models: g.allowedModels,
    ignored_models: g.ignoredModels,
    allowed_providers: g.allowedProviders,
    ignored_providers: g.ignoredProviders,
    content_filters: g.contentFilters.map((f) => ({ pattern: f.pattern, action: f.action, label: f.label ?? null })),
    content_filter_builtins: g.contentFilterBuiltins.map((b) => ({ slug: b.slug, action: b.action, ...(b.scanScope ? { scan_scope: b.scanScope } : {}), ...(b.label ? { label: b.label } : {}) })),
    apply_to: g.applyTo,
    ...options,
    workspace_id: g.workspaceId,
    created_at: iso(g.createdAt),
    updated_at: iso(g.updatedAt),
  };
}

export function keyAssignmentView(a: AssignmentRecord, key: ApiKeyRecord | undefined): Record<string, unknown> {
  return {
    id: a.id,
    guardrail_id: a.guardrailId,
    key_hash: a.target,
    key_name: key?.name ?? "",
    key_label: key?.label ?? "",
    assigned_by: null,
    created_at: iso(a.createdAt),
  };
}

export function workspaceAssignmentView(a: AssignmentRecord): Record<string, unknown> {
  return { id: a.id, guardrail_id: a.guardrailId, workspace_id: a.target, assigned_by: null, created_at: iso(a.createdAt) };
}
