/**
 * Row shapes of the tables (ARCHITECTURE §5), as kysely sees them. Only repositories use these; everything else
 * sees the records of `types.ts`. Booleans are integers 0/1 on both dialects so the SQL is identical; timestamps are
 * bigint unix ms (Postgres hands int8 back as a string unless parsed, so repositories convert defensively).
 */
import type { ColumnType, Generated } from "kysely";

/** A bigint column: written as a number, read as a number (or a string from a driver without our int8 parser). */
export type BigintColumn = ColumnType<number | string, number, number>;
/** A nullable bigint column. */
export type NullableBigintColumn = ColumnType<number | string | null, number | null, number | null>;

/** `workspaces`. */
export interface WorkspacesTable {
  id: string;
  name: string;
  created_at: BigintColumn;
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
}

/** The whole database, for `Kysely<StoreDatabase>`. */
export interface StoreDatabase {
  workspaces: WorkspacesTable;
  api_keys: ApiKeysTable;
  generations: GenerationsTable;
}

/** Which SQL dialect a store runs on. */
export type StoreDialect = "sqlite" | "postgres";
