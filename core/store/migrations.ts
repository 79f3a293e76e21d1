/**
 * The schema, as a static migration map: the binary is built with `bun build --compile`, so
 * migrations live in code, never in a scanned directory. Append new entries; never edit an applied one.
 */
import { sql, type Kysely } from "kysely";
import { Migrator, type Migration, type MigrationProvider } from "kysely/migration";
import type { Logger } from "pino";
import type { StoreDialect } from "./schema.ts";

/** Column types that differ between the dialects. */
interface ColumnTypes {
  /** IEEE double: SQLite's REAL is already 8 bytes; Postgres' `real` would be 4, hence `double precision`. */
  money: "real" | "double precision";
}

function columnTypes(dialect: StoreDialect): ColumnTypes {
  return { money: dialect === "postgres" ? "double precision" : "real" };
}

// Untyped on purpose (and kysely's own Migration signature): a migration sees the schema of its own moment in
// history, not today's `StoreDatabase`.
type AnyDb = Kysely<any>;

function initial(types: ColumnTypes): Migration {
  return {
    async up(db: AnyDb) {
      await db.schema
        .createTable("workspaces")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("name", "text", (c) => c.notNull())
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .execute();

      await db.schema
        .createTable("api_keys")
        .addColumn("hash", "text", (c) => c.primaryKey())
        .addColumn("workspace_id", "text", (c) => c.notNull())
        .addColumn("name", "text", (c) => c.notNull())
        .addColumn("label", "text", (c) => c.notNull())
        .addColumn("is_management", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("disabled", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("limit_usd", types.money)
        .addColumn("limit_reset", "text")
        .addColumn("usage_usd", types.money, (c) => c.notNull().defaultTo(0))
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("updated_at", "bigint", (c) => c.notNull())
        .addColumn("expires_at", "bigint")
        .execute();
      await db.schema
        .createIndex("api_keys_workspace_created_idx")
        .on("api_keys")
        .columns(["workspace_id", "created_at"])
        .execute();

      await db.schema
        .createTable("generations")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("workspace_id", "text", (c) => c.notNull())
        .addColumn("key_hash", "text", (c) => c.notNull())
        .addColumn("format", "text", (c) => c.notNull())
        .addColumn("model", "text", (c) => c.notNull())
        .addColumn("provider_id", "text")
        .addColumn("upstream_model", "text")
        .addColumn("streamed", "integer", (c) => c.notNull())
        .addColumn("status", "integer", (c) => c.notNull())
        .addColumn("finish_reason", "text")
        .addColumn("error_type", "text")
        .addColumn("input_tokens", "integer", (c) => c.notNull())
        .addColumn("cached_input_tokens", "integer", (c) => c.notNull())
        .addColumn("cache_write_tokens", "integer", (c) => c.notNull())
        .addColumn("output_tokens", "integer", (c) => c.notNull())
        .addColumn("reasoning_tokens", "integer", (c) => c.notNull())
        .addColumn("cost_usd", types.money, (c) => c.notNull())
        .addColumn("latency_ms", "integer", (c) => c.notNull())
        .addColumn("first_token_ms", "integer")
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("generations_workspace_id_idx")
        .on("generations")
        .columns(["workspace_id", "id"])
        .execute();
    },
  };
}

/**
 * Presets with numbered versions, and durable batches with their items. JSON travels as text on both
 * dialects so the repositories' SQL is identical; the unique constraints are what make version numbers and
 * custom ids safe under concurrency.
 */
function presetsAndBatches(types: ColumnTypes): Migration {
  return {
    async up(db: AnyDb) {
      await db.schema
        .createTable("presets")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("workspace_id", "text", (c) => c.notNull())
        .addColumn("slug", "text", (c) => c.notNull())
        .addColumn("name", "text", (c) => c.notNull())
        .addColumn("description", "text")
        .addColumn("status", "text", (c) => c.notNull())
        .addColumn("status_updated_at", "bigint")
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("updated_at", "bigint", (c) => c.notNull())
        .addColumn("creator_user_id", "text", (c) => c.notNull())
        .addColumn("designated_version_id", "text")
        .addUniqueConstraint("presets_workspace_slug_unique", ["workspace_id", "slug"])
        .execute();
      await db.schema
        .createIndex("presets_workspace_updated_idx")
        .on("presets")
        .columns(["workspace_id", "updated_at"])
        .execute();

      await db.schema
        .createTable("preset_versions")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("preset_id", "text", (c) => c.notNull())
        .addColumn("version", "integer", (c) => c.notNull())
        .addColumn("config", "text", (c) => c.notNull())
        .addColumn("system_prompt", "text")
        .addColumn("creator_id", "text", (c) => c.notNull())
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("updated_at", "bigint", (c) => c.notNull())
        .addUniqueConstraint("preset_versions_preset_version_unique", ["preset_id", "version"])
        .execute();

      await db.schema
        .createTable("batches")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("workspace_id", "text", (c) => c.notNull())
        .addColumn("key_hash", "text", (c) => c.notNull())
        .addColumn("endpoint", "text", (c) => c.notNull())
        .addColumn("model", "text")
        .addColumn("status", "text", (c) => c.notNull())
        .addColumn("completion_window", "text", (c) => c.notNull())
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("in_progress_at", "bigint")
        .addColumn("finalizing_at", "bigint")
        .addColumn("finalized_at", "bigint")
        .addColumn("cancelling_at", "bigint")
        .addColumn("cancelled_at", "bigint")
        .addColumn("expires_at", "bigint", (c) => c.notNull())
        .addColumn("error", "text")
        .addColumn("request_total", "integer", (c) => c.notNull())
        .addColumn("request_completed", "integer")
        .addColumn("request_failed", "integer")
        .addColumn("usage", "text")
        .addColumn("cost_usd", types.money)
        .addColumn("purged_at", "bigint")
        .execute();
      await db.schema
        .createIndex("batches_workspace_created_idx")
        .on("batches")
        .columns(["workspace_id", "created_at", "id"])
        .execute();
      await db.schema.createIndex("batches_status_idx").on("batches").columns(["status", "created_at"]).execute();

      await db.schema
        .createTable("batch_items")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("batch_id", "text", (c) => c.notNull())
        .addColumn("idx", "integer", (c) => c.notNull())
        .addColumn("custom_id", "text", (c) => c.notNull())
        .addColumn("body", "text", (c) => c.notNull())
        .addColumn("status", "text", (c) => c.notNull())
        .addColumn("claimed_by", "text")
        .addColumn("claimed_until", "bigint")
        .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("result", "text")
        .addColumn("error", "text")
        .addColumn("finished_at", "bigint")
        .addUniqueConstraint("batch_items_batch_custom_id_unique", ["batch_id", "custom_id"])
        .execute();
      await db.schema
        .createIndex("batch_items_batch_status_idx")
        .on("batch_items")
        .columns(["batch_id", "status", "idx"])
        .execute();
    },
  };
}

/**
 * Per-key rate limits (null = the config default) and an index for summing a key's
 * spending since a credit window started (credits are re-seeded from it when the kv has no counter).
 */
function keyRateLimits(): Migration {
  return {
    async up(db: AnyDb) {
      // One column per statement: SQLite's ALTER TABLE adds a single column at a time.
      await db.schema.alterTable("api_keys").addColumn("rate_limit_requests", "integer").execute();
      await db.schema.alterTable("api_keys").addColumn("rate_limit_tokens", "integer").execute();
      await db.schema.alterTable("api_keys").addColumn("rate_limit_interval_s", "integer").execute();
      await db.schema.createIndex("generations_key_created_idx").on("generations").columns(["key_hash", "created_at"]).execute();
    },
  };
}

/**
 * `include_byok_in_limit` on keys (returned on every key). The gateway
 * has no BYOK, so it changes no limit; it is stored so a client reads back what it set. And the key/time index
 * gains `cost_usd`, replacing 0003's: the sums behind `usage_daily` / `_weekly` / `_monthly` (and credit seeding)
 * then read the index alone (measured on SQLite, 100k generations of one key this month: GET /key 74 ms → 14 ms).
 */
function keyIncludeByokAndSpendIndex(): Migration {
  return {
    async up(db: AnyDb) {
      await db.schema.alterTable("api_keys").addColumn("include_byok_in_limit", "integer", (c) => c.notNull().defaultTo(0)).execute();
      await db.schema.createIndex("generations_key_created_cost_idx").on("generations").columns(["key_hash", "created_at", "cost_usd"]).execute();
      await db.schema.dropIndex("generations_key_created_idx").execute();
    },
  };
}

/**
 * What the admin page reads: each generation's details (attempts, pipeline entries, warnings as JSON text) and an
 * index for the workspace's generation log and its usage by day, newest first.
 */
function generationDetailsAndLog(): Migration {
  return {
    async up(db: AnyDb) {
      await db.schema.alterTable("generations").addColumn("details", "text").execute();
      await db.schema.createIndex("generations_workspace_created_idx").on("generations").columns(["workspace_id", "created_at"]).execute();
    },
  };
}

/**
 * Guardrails: policies, their assignments to keys and workspaces, the spending each budget counted
 * (one row per generation and guardrail, written with the generation, so a budget window is re-seeded from the store
 * like a key's), and admissions to beta features (alignment). What a guardrail found is recorded with the generation
 * through its pipeline entries (0005_generation_details_log).
 */
function guardrails(types: ColumnTypes): Migration {
  return {
    async up(db: AnyDb) {
      await db.schema
        .createTable("guardrails")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("workspace_id", "text", (c) => c.notNull())
        .addColumn("name", "text", (c) => c.notNull())
        .addColumn("description", "text")
        .addColumn("limit_usd", types.money)
        .addColumn("reset_interval", "text")
        .addColumn("allowed_models", "text")
        .addColumn("ignored_models", "text")
        .addColumn("allowed_providers", "text")
        .addColumn("ignored_providers", "text")
        .addColumn("content_filters", "text", (c) => c.notNull())
        .addColumn("content_filter_builtins", "text", (c) => c.notNull())
        .addColumn("apply_to", "text", (c) => c.notNull())
        .addColumn("options", "text", (c) => c.notNull())
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("updated_at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("guardrails_workspace_created_idx").on("guardrails").columns(["workspace_id", "created_at", "id"]).execute();

      await db.schema
        .createTable("guardrail_assignments")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("guardrail_id", "text", (c) => c.notNull())
        .addColumn("workspace_id", "text", (c) => c.notNull())
        .addColumn("scope", "text", (c) => c.notNull())
        .addColumn("target", "text", (c) => c.notNull())
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addUniqueConstraint("guardrail_assignments_unique", ["guardrail_id", "scope", "target"])
        .execute();
      // The hot lookup (which guardrails apply to this key or workspace), then listings per workspace.
      await db.schema.createIndex("guardrail_assignments_target_idx").on("guardrail_assignments").columns(["scope", "target"]).execute();
      await db.schema.createIndex("guardrail_assignments_workspace_idx").on("guardrail_assignments").columns(["workspace_id", "scope", "created_at"]).execute();

      await db.schema
        .createTable("guardrail_spend")
        .addColumn("guardrail_id", "text", (c) => c.notNull())
        .addColumn("generation_id", "text", (c) => c.notNull())
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("cost_usd", types.money, (c) => c.notNull())
        .addPrimaryKeyConstraint("guardrail_spend_pk", ["guardrail_id", "generation_id"])
        .execute();
      await db.schema.createIndex("guardrail_spend_window_idx").on("guardrail_spend").columns(["guardrail_id", "created_at", "cost_usd"]).execute();

      await db.schema
        .createTable("beta_admissions")
        .addColumn("feature", "text", (c) => c.notNull())
        .addColumn("scope", "text", (c) => c.notNull())
        .addColumn("target", "text", (c) => c.notNull())
        .addColumn("workspace_id", "text", (c) => c.notNull())
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addPrimaryKeyConstraint("beta_admissions_pk", ["feature", "scope", "target"])
        .execute();
    },
  };
}

/**
 * Idempotent requests: the finished reply of a request sent with an `Idempotency-Key`, replayed to a
 * retry for 24 h, also after a restart. `expires_at` is indexed for the sweep.
 */
function idempotencyReplies(): Migration {
  return {
    async up(db: AnyDb) {
      await db.schema
        .createTable("idempotency_replies")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("body_digest", "text", (c) => c.notNull())
        .addColumn("status", "integer", (c) => c.notNull())
        .addColumn("headers", "text", (c) => c.notNull())
        .addColumn("body", "text", (c) => c.notNull())
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("expires_at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("idempotency_replies_expires_idx").on("idempotency_replies").column("expires_at").execute();
    },
  };
}

/** A key's own strict-mode default (README "Strict mode"): null = the config's; 0/1 otherwise. */
function keyStrict(): Migration {
  return {
    async up(db: AnyDb) {
      await db.schema.alterTable("api_keys").addColumn("strict", "integer").execute();
    },
  };
}

/** A key's response-cache setting (README "Response cache"): null = unset (the workspace's applies). */
function keyCache(): Migration {
  return {
    async up(db: AnyDb) {
      await db.schema.alterTable("api_keys").addColumn("cache_enabled", "integer").execute();
      await db.schema.alterTable("api_keys").addColumn("cache_ttl_seconds", "integer").execute();
    },
  };
}

/**
 * Several workspaces (README "Workspaces"): a workspace gains a unique slug, a description, an update time and its
 * settings (JSON text: allowed models and providers, plugin defaults, rate limit, generation retention); its spending
 * budgets, one per interval; and a key gains `is_operator`, the operator's management keys (every workspace) as
 * against a workspace's own. Management keys made before this migration were the operator's.
 */
function workspaces(types: ColumnTypes): Migration {
  return {
    async up(db: AnyDb) {
      await db.schema.alterTable("workspaces").addColumn("slug", "text").execute();
      await db.schema.alterTable("workspaces").addColumn("description", "text").execute();
      await db.schema.alterTable("workspaces").addColumn("updated_at", "bigint").execute();
      await db.schema.alterTable("workspaces").addColumn("settings", "text").execute();
      await db.schema.alterTable("workspaces").addColumn("include_byok_in_budgets", "integer", (c) => c.notNull().defaultTo(0)).execute();
      await db.updateTable("workspaces").set({ slug: sql`id` }).execute();
      await db.updateTable("workspaces").set({ slug: "default" }).where("id", "=", "00000000-0000-4000-8000-000000000001").execute();
      await db.schema.createIndex("workspaces_slug_unique").on("workspaces").column("slug").unique().execute();

      await db.schema
        .createTable("workspace_budgets")
        .addColumn("workspace_id", "text", (c) => c.notNull())
        .addColumn("interval", "text", (c) => c.notNull())
        .addColumn("limit_usd", types.money, (c) => c.notNull())
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("updated_at", "bigint", (c) => c.notNull())
        .addPrimaryKeyConstraint("workspace_budgets_pk", ["workspace_id", "interval"])
        .execute();

      await db.schema.alterTable("api_keys").addColumn("is_operator", "integer", (c) => c.notNull().defaultTo(0)).execute();
      await db.updateTable("api_keys").set({ is_operator: sql`is_management` }).execute();
    },
  };
}

/**
 * Bring your own keys (README "Bring your own keys"): provider credentials of a workspace or of one key, encrypted
 * (AES-256-GCM; only the last four characters are kept in clear, for display); and each generation records whether a
 * BYOK credential paid for it and what the provider's own price for that was.
 */
function byok(types: ColumnTypes): Migration {
  return {
    async up(db: AnyDb) {
      await db.schema
        .createTable("byok_credentials")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("workspace_id", "text", (c) => c.notNull())
        .addColumn("key_hash", "text")
        .addColumn("provider", "text", (c) => c.notNull())
        .addColumn("name", "text")
        .addColumn("secret", "text", (c) => c.notNull())
        .addColumn("last4", "text", (c) => c.notNull())
        .addColumn("byok_only", "integer", (c) => c.notNull().defaultTo(1))
        .addColumn("disabled", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("allowed_models", "text")
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("updated_at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("byok_credentials_workspace_idx").on("byok_credentials").columns(["workspace_id", "created_at"]).execute();
      await db.schema.alterTable("generations").addColumn("is_byok", "integer", (c) => c.notNull().defaultTo(0)).execute();
      await db.schema.alterTable("generations").addColumn("byok_cost_usd", types.money, (c) => c.notNull().defaultTo(0)).execute();
    },
  };
}

/** Every migration, by name; names sort in application order. */
export function storeMigrations(dialect: StoreDialect): Record<string, Migration> {
  const types = columnTypes(dialect);
  return {
    "0001_initial": initial(types),
    "0002_presets_batches": presetsAndBatches(types),
    "0003_key_rate_limits": keyRateLimits(),
    "0004_key_include_byok_spend_index": keyIncludeByokAndSpendIndex(),
    "0005_generation_details_log": generationDetailsAndLog(),
    "0006_guardrails": guardrails(types),
    "0007_idempotency_replies": idempotencyReplies(),
    "0008_key_strict": keyStrict(),
    "0009_key_cache": keyCache(),
    "0010_workspaces": workspaces(types),
    "0011_byok": byok(types),
  };
}

/** Brings the schema up to date. `schema` pins kysely's bookkeeping tables (Postgres: the current schema). */
export async function migrateToLatest(
  db: AnyDb,
  dialect: StoreDialect,
  opts: { schema?: string; logger?: Logger } = {},
): Promise<void> {
  const provider: MigrationProvider = { getMigrations: async () => storeMigrations(dialect) };
  const migrator = new Migrator({ db, provider, migrationTableSchema: opts.schema });
  const { error, results } = await migrator.migrateToLatest();
  for (const result of results ?? []) {
    if (result.status === "Success") opts.logger?.info({ migration: result.migrationName }, "store migration applied");
    if (result.status === "Error") opts.logger?.error({ migration: result.migrationName }, "store migration failed");
  }
  if (error) throw error instanceof Error ? error : new Error(`store migration failed: ${String(error)}`);
}
