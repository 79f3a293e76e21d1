/** The static migration map: column types per dialect, idempotent re-runs. */
import { describe, expect, test } from "bun:test";
import { Kysely } from "kysely";
import { migrateToLatest, storeMigrations } from "../../../core/store/migrations.ts";
import { BunSqliteDialect } from "../../../core/store/sqlite-driver.ts";

describe("store migrations", () => {
  test("names sort in application order", () => {
    const names = Object.keys(storeMigrations("sqlite"));
    expect(names).toEqual([...names].sort());
    expect(Object.keys(storeMigrations("postgres"))).toEqual(names);
  });

  test("create the tables once; re-running is a no-op", async () => {
    const db = new Kysely<unknown>({ dialect: new BunSqliteDialect({ path: ":memory:" }) });
    await migrateToLatest(db, "sqlite");
    await migrateToLatest(db, "sqlite");
    const tables = await db.introspection.getTables();
    const byName = new Map(tables.map((t) => [t.name, t.columns.map((c) => `${c.name}:${c.dataType.toLowerCase()}`)]));
    expect([...byName.keys()].sort()).toEqual(["api_keys", "batch_items", "batches", "beta_admissions", "byok_credentials", "generations", "guardrail_assignments", "guardrail_spend", "guardrails", "idempotency_replies", "preset_versions", "presets", "workspace_budgets", "workspaces"]);
    expect(byName.get("api_keys")).toEqual([
      "hash:text",
      "workspace_id:text",
      "name:text",
      "label:text",
      "is_management:integer",
      "disabled:integer",
      "limit_usd:real",
      "limit_reset:text",
      "usage_usd:real",
      "created_at:bigint",
      "updated_at:bigint",
      "expires_at:bigint",
      "rate_limit_requests:integer",
      "rate_limit_tokens:integer",
      "rate_limit_interval_s:integer",
      "include_byok_in_limit:integer",
      "strict:integer",
      "cache_enabled:integer",
      "cache_ttl_seconds:integer",
      "is_operator:integer",
    ]);
    await db.destroy();
  });
});
