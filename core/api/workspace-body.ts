/**
 * Bodies of `POST /workspaces` and `PATCH /workspaces/{id}`: the peer SDK's fields (`CreateWorkspaceRequest`,
 * `UpdateWorkspaceRequest`) plus `settings`, the gateway's per-workspace settings (README "Workspaces").
 */
import { t, type Static } from "elysia";
import { CacheSettingSchema } from "../cache/setting-body.ts";
import { RateLimitSchema } from "../config/routing-limits.ts";
import { errors } from "../errors.ts";
import type { WorkspaceSettings } from "../store/types/workspaces.ts";

const Names = t.Union([t.Array(t.String({ minLength: 1, maxLength: 256 }), { maxItems: 1_000 }), t.Null()]);

export const WorkspaceSettingsBody = t.Object(
  {
    allowed_models: t.Optional(Names),
    allowed_providers: t.Optional(Names),
    plugins: t.Optional(t.Union([t.Array(t.Object({ id: t.String({ minLength: 1, maxLength: 128 }) }, { additionalProperties: true }), { maxItems: 64 }), t.Null()])),
    rate_limit: t.Optional(t.Union([RateLimitSchema, t.Null()])),
    generation_retention_days: t.Optional(t.Union([t.Integer({ minimum: 1, maximum: 36_500 }), t.Null()])),
    cache: t.Optional(t.Union([CacheSettingSchema, t.Null()])),
  },
  { additionalProperties: false },
);

const Slug = t.String({ minLength: 1, maxLength: 64, pattern: "^[a-z0-9][a-z0-9_-]*$" });
const NullableText = t.Union([t.String({ maxLength: 256 }), t.Null()]);

const common = {
  description: t.Optional(t.Union([t.String({ maxLength: 4_000 }), t.Null()])),
  default_text_model: t.Optional(NullableText),
  default_image_model: t.Optional(NullableText),
  default_provider_sort: t.Optional(NullableText),
  disabled_server_tools: t.Optional(t.Union([t.Array(t.String({ minLength: 1, maxLength: 128 }), { maxItems: 64 }), t.Null()])),
  include_byok_in_budgets: t.Optional(t.Boolean()),
  // Observability and logging of the peer's hosted service: accepted only with their off values (nothing is dropped).
  io_logging_api_key_ids: t.Optional(t.Union([t.Array(t.Integer()), t.Null()])),
  io_logging_sampling_rate: t.Optional(t.Number()),
  is_data_discount_logging_enabled: t.Optional(t.Boolean()),
  is_observability_broadcast_enabled: t.Optional(t.Boolean()),
  is_observability_io_logging_enabled: t.Optional(t.Boolean()),
  settings: t.Optional(WorkspaceSettingsBody),
};

export const CreateWorkspaceBody = t.Object({ name: t.String({ minLength: 1, maxLength: 256 }), slug: Slug, ...common });
export const PatchWorkspaceBody = t.Object({ name: t.Optional(t.String({ minLength: 1, maxLength: 256 })), slug: t.Optional(Slug), ...common });

type Body = Static<typeof PatchWorkspaceBody>;

/** The settings a body sets, over `current`; a 400 for a hosted-service feature turned on. */
export function settingsOf(body: Body, current: WorkspaceSettings): WorkspaceSettings {
  refuseHostedFeatures(body);
  const next: WorkspaceSettings = { ...current };
  for (const field of ["default_text_model", "default_image_model", "default_provider_sort", "disabled_server_tools"] as const) {
    if (body[field] !== undefined) next[field] = body[field] as never;
  }
  if (body.settings) {
    for (const [field, value] of Object.entries(body.settings)) (next as Record<string, unknown>)[field] = value;
  }
  for (const [field, value] of Object.entries(next)) if (value === null) delete (next as Record<string, unknown>)[field];
  return next;
}

function refuseHostedFeatures(body: Body): void {
  const on: string[] = [];
  if (body.io_logging_api_key_ids && body.io_logging_api_key_ids.length > 0) on.push("io_logging_api_key_ids");
  if (body.io_logging_sampling_rate !== undefined && body.io_logging_sampling_rate !== 0) on.push("io_logging_sampling_rate");
  for (const flag of ["is_data_discount_logging_enabled", "is_observability_broadcast_enabled", "is_observability_io_logging_enabled"] as const) {
    if (body[flag] === true) on.push(flag);
  }
  if (on.length > 0) throw errors.invalid(`${on[0]}: a feature of the hosted service this gateway does not have (README "Workspaces")`, { param: on[0]! });
}
