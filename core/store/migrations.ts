/**
 * The schema, as a static migration map (ARCHITECTURE §5): the binary is built with `bun build --compile`, so
 * migrations live in code, never in a scanned directory. Append new entries; never edit an applied one.
 */
import type { Kysely } from "kysely";
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

/** Every migration, by name; names sort in application order. */
export function storeMigrations(dialect: StoreDialect): Record<string, Migration> {
  const types = columnTypes(dialect);
  return {
    "0001_initial": initial(types),
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
