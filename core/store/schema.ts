/**
 * Row shapes of the tables, as kysely sees them. Only repositories use these; everything else
 * sees the records of `types.ts`. Booleans are integers 0/1 on both dialects so the SQL is identical; timestamps are
 * bigint unix ms (Postgres hands int8 back as a string unless parsed, so repositories convert defensively).
 */
import type { ColumnType, Generated } from "kysely";

/** A bigint column: written as a number, read as a number (or a string from a driver without our int8 parser). */
export type BigintColumn = ColumnType<number | string, number, number>;
/** A nullable bigint column. */
export type NullableBigintColumn = ColumnType<number | string | null, number | null, number | null>;

/** `workspaces` (slug, description, updated_at, settings and include_byok_in_budgets: migration 0010). */
export interface WorkspacesTable {
  id: string;
  name: string;
  created_at: BigintColumn;
  slug: string | null;
  description: string | null;
  updated_at: NullableBigintColumn;
  /** JSON text of the workspace's settings; null = none. */
  settings: string | null;
  include_byok_in_budgets: Generated<number>;
}

/** `workspace_budgets` (migration 0010): one spending budget per workspace and interval. */
export interface WorkspaceBudgetsTable {
  workspace_id: string;
  interval: string;
  limit_usd: number;
  created_at: BigintColumn;
  updated_at: BigintColumn;
}

/** `api_keys`: the secret is never stored, only its SHA-256. */
export interface ApiKeysTable {
  hash: string;
  workspace_id: string;
  name: string;
  label: string;
  is_management: number;
  disabled: number;
  limit_usd: number | null;
  limit_reset: string | null;
  usage_usd: Generated<number>;
  created_at: BigintColumn;
  updated_at: BigintColumn;
  expires_at: NullableBigintColumn;
  /** Per-key rate limit (migration 0003); all null = the config default applies. */
  rate_limit_requests: number | null;
  rate_limit_tokens: number | null;
  rate_limit_interval_s: number | null;
  /** Migration 0004: 0/1, whether BYOK spending counts against the key's limit (README "Bring your own keys"). */
  include_byok_in_limit: Generated<number>;
  /** Migration 0008: the key's strict-mode default, 0/1; null = the config's. */
  strict: Generated<number | null>;
  /** Migration 0009: the key's response-cache setting (README "Response cache"): 0/1 and its TTL; null = unset. */
  cache_enabled: Generated<number | null>;
  cache_ttl_seconds: Generated<number | null>;
  /** Migration 0010: 0/1, an operator's management key (every workspace). */
  is_operator: Generated<number>;
}

/** `generations`: one billed inference request. Counters are 32-bit integers: one request never nears 2^31. */
export interface GenerationsTable {
  id: string;
  workspace_id: string;
  key_hash: string;
  format: string;
  model: string;
  provider_id: string | null;
  upstream_model: string | null;
  streamed: number;
  status: number;
  finish_reason: string | null;
  error_type: string | null;
  input_tokens: number;
  cached_input_tokens: number;
  cache_write_tokens: number;
  output_tokens: number;
  reasoning_tokens: number;
  cost_usd: number;
  latency_ms: number;
  first_token_ms: number | null;
  created_at: BigintColumn;
  /** JSON text: attempts, pipeline entries and warnings (migration 0005). */
  details: string | null;
  /** Migration 0011: 0/1, a workspace's own provider key paid the upstream; and the provider's price of that. */
  is_byok: Generated<number>;
  byok_cost_usd: Generated<number>;
}

/** `byok_credentials` (migration 0011): `secret` is AES-256-GCM ciphertext, never the key. */
export interface ByokCredentialsTable {
  id: string;
  workspace_id: string;
  key_hash: string | null;
  provider: string;
  name: string | null;
  secret: string;
  last4: string;
  byok_only: number;
  disabled: number;
  allowed_models: string | null;
  created_at: BigintColumn;
  updated_at: BigintColumn;
}

/** `presets` (spec "Preset"): one row per slug and workspace; versions live in `preset_versions`. */
export interface PresetsTable {
  id: string;
  workspace_id: string;
  slug: string;
  name: string;
  description: string | null;
  status: string;
  status_updated_at: NullableBigintColumn;
  created_at: BigintColumn;
  updated_at: BigintColumn;
  creator_user_id: string;
  designated_version_id: string | null;
}

/** `preset_versions`: immutable, numbered 1, 2, … per preset; `config` is JSON text. */
export interface PresetVersionsTable {
  id: string;
  preset_id: string;
  version: number;
  config: string;
  system_prompt: string | null;
  creator_id: string;
  created_at: BigintColumn;
  updated_at: BigintColumn;
}

/** `batches` (spec "Batch"): JSON columns are text on both dialects. */
export interface BatchesTable {
  id: string;
  workspace_id: string;
  key_hash: string;
  endpoint: string;
  model: string | null;
  status: string;
  completion_window: string;
  created_at: BigintColumn;
  in_progress_at: NullableBigintColumn;
  finalizing_at: NullableBigintColumn;
  finalized_at: NullableBigintColumn;
  cancelling_at: NullableBigintColumn;
  cancelled_at: NullableBigintColumn;
  expires_at: BigintColumn;
  error: string | null;
  request_total: number;
  request_completed: number | null;
  request_failed: number | null;
  usage: string | null;
  cost_usd: number | null;
  purged_at: NullableBigintColumn;
}

/** `batch_items`: one request of a batch, claimed by a worker under a lease. */
export interface BatchItemsTable {
  id: string;
  batch_id: string;
  idx: number;
  custom_id: string;
  body: string;
  status: string;
  claimed_by: string | null;
  claimed_until: NullableBigintColumn;
  attempts: Generated<number>;
  result: string | null;
  error: string | null;
  finished_at: NullableBigintColumn;
}

/** `guardrails`: collections are JSON text on both dialects. */
export interface GuardrailsTable {
  id: string;
  workspace_id: string;
  name: string;
  description: string | null;
  limit_usd: number | null;
  reset_interval: string | null;
  allowed_models: string | null;
  ignored_models: string | null;
  allowed_providers: string | null;
  ignored_providers: string | null;
  content_filters: string;
  content_filter_builtins: string;
  apply_to: string;
  options: string;
  created_at: BigintColumn;
  updated_at: BigintColumn;
}

/** `guardrail_assignments`: a guardrail attached to a key (`target` = its hash) or a workspace (`target` = its id). */
export interface GuardrailAssignmentsTable {
  id: string;
  guardrail_id: string;
  workspace_id: string;
  scope: string;
  target: string;
  created_at: BigintColumn;
}

/** `guardrail_spend`: what one generation cost under one guardrail's budget (seeds budget windows). */
export interface GuardrailSpendTable {
  guardrail_id: string;
  generation_id: string;
  created_at: BigintColumn;
  cost_usd: number;
}

/** `beta_admissions`: who may use a beta feature (the alignment plugin). */
export interface BetaAdmissionsTable {
  feature: string;
  scope: string;
  target: string;
  workspace_id: string;
  created_at: BigintColumn;
}

/** `idempotency_replies`: finished replies of requests sent with an `Idempotency-Key`, kept 24 h. */
export interface IdempotencyRepliesTable {
  id: string;
  body_digest: string;
  status: number;
  /** JSON object of header name → value. */
  headers: string;
  body: string;
  created_at: BigintColumn;
  expires_at: BigintColumn;
}

/** The whole database, for `Kysely<StoreDatabase>`. */
export interface StoreDatabase {
  workspaces: WorkspacesTable;
  workspace_budgets: WorkspaceBudgetsTable;
  byok_credentials: ByokCredentialsTable;
  api_keys: ApiKeysTable;
  generations: GenerationsTable;
  presets: PresetsTable;
  preset_versions: PresetVersionsTable;
  batches: BatchesTable;
  batch_items: BatchItemsTable;
  guardrails: GuardrailsTable;
  guardrail_assignments: GuardrailAssignmentsTable;
  guardrail_spend: GuardrailSpendTable;
  beta_admissions: BetaAdmissionsTable;
  idempotency_replies: IdempotencyRepliesTable;
}

/** Which SQL dialect a store runs on. */
export type StoreDialect = "sqlite" | "postgres";
