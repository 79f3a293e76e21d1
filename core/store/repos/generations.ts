/** The generations repository: billed requests, written in batches off the hot path. */
import type { Database } from "bun:sqlite";
import type { Insertable, Kysely, Selectable, Transaction } from "kysely";
import { toBinding } from "../sqlite-driver.ts";
import type { GenerationsTable, StoreDatabase } from "../schema.ts";
import type { GenerationRecord, GenerationRepo } from "../types/generations.ts";
import { fromBool, toBool, toNumber, toNumberOrNull } from "./convert.ts";
import { listGenerations, usageByDay } from "./generation-log.ts";

/**
 * Rows per INSERT: 21 columns × 500 = 10,500 bind parameters, below both SQLite's (32,766) and Postgres' (65,535)
 * per-statement limits.
 */
const ROWS_PER_INSERT = 500;

/** The columns of {@link toRow}, in the order the SQLite single-row INSERT binds them. */
const COLUMNS = [
  "id",
  "workspace_id",
  "key_hash",
  "format",
  "model",
  "provider_id",
  "upstream_model",
  "streamed",
  "status",
  "finish_reason",
  "error_type",
  "input_tokens",
  "cached_input_tokens",
  "cache_write_tokens",
  "output_tokens",
  "reasoning_tokens",
  "cost_usd",
  "latency_ms",
  "first_token_ms",
  "created_at",
  "details",
  "is_byok",
  "byok_cost_usd",
] as const satisfies ReadonlyArray<keyof GenerationsTable>;

/** Same statement as the batched kysely INSERT, one row at a time: prepared once, cached by bun:sqlite. */
const INSERT_ONE_SQLITE =
  `insert into "generations" (${COLUMNS.map((c) => `"${c}"`).join(", ")}) ` +
  `values (${COLUMNS.map(() => "?").join(", ")}) on conflict ("id") do nothing`;

/** Adds a newly written record's cost to its key's usage (the ledger's billing step). */
const ADD_USAGE_SQLITE = `update "api_keys" set "usage_usd" = "usage_usd" + ? where "hash" = ?`;

/** Records a generation's cost under a guardrail budget; a retried flush adds nothing twice. */
const ADD_SPEND_SQLITE = `insert into "guardrail_spend" ("guardrail_id", "generation_id", "created_at", "cost_usd") values (?, ?, ?, ?) on conflict do nothing`;

/** Runs statements on the SQLite store's bun:sqlite handle, serialized with kysely's one connection (store.ts). */
export type SqliteRunner = <T>(run: (database: Database) => T) => Promise<T>;

/**
 * Creates the generations repository over a migrated database. With `sqlite` (the SQLite store), writes run one
 * reused prepared single-row INSERT per record inside one transaction instead of building and compiling 500-row
 * INSERTs through kysely: the ledger flush blocks the event loop (bun:sqlite is synchronous) for less time, and no
 * large statement is parsed per flush. Postgres keeps the batched kysely path.
 */
export function createGenerationRepo(db: Kysely<StoreDatabase>, sqlite?: SqliteRunner): GenerationRepo {
  return {
    async insertMany(records) {
      if (records.length === 0) return;
      if (sqlite) {
        await sqlite((database) => void writeSqlite(database, records, false));
        return;
      }
      await db.transaction().execute((trx) => insertNew(trx, records));
    },

    async bill(records) {
      if (records.length === 0) return;
      if (sqlite) {
        await sqlite((database) => writeSqlite(database, records, true));
        return;
      }
      await db.transaction().execute(async (trx) => {
        const inserted = await insertNew(trx, records);
        const spend = budgetSpend(inserted);
        if (spend.length > 0) await trx.insertInto("guardrail_spend").values(spend).onConflict((oc) => oc.columns(["guardrail_id", "generation_id"]).doNothing()).execute();
        const totals = costByKey(inserted);
        for (const [hash, amount] of totals) {
          // `usage_usd + ?` is evaluated under the row lock: concurrent flushes never lose an increment.
          await trx.updateTable("api_keys").set((eb) => ({ usage_usd: eb("usage_usd", "+", amount) })).where("hash", "=", hash).execute();
        }
      });
    },

    async get(id, workspaceId) {
      const row = await db
        .selectFrom("generations")
        .selectAll()
        .where("workspace_id", "=", workspaceId)
        .where("id", "=", id)
        .executeTakeFirst();
      return row && toRecord(row);
    },

    list: (workspaceId, query) => listGenerations(db, workspaceId, query).then((rows) => rows.map(toRecord)),

    usageByDay: (workspaceId, range) => usageByDay(db, workspaceId, range),

    async byokCostSince(keyHash, since) {
      const row = await db
        .selectFrom("generations")
        .select((eb) => eb.fn.sum<number | string | null>("byok_cost_usd").as("total"))
        .where("key_hash", "=", keyHash)
        .where("is_byok", "=", 1)
        .where("created_at", ">=", Math.floor(since))
        .executeTakeFirst();
      return row?.total == null ? 0 : toNumber(row.total);
    },

    async costSince(keyHash, since) {
      const row = await db
        .selectFrom("generations")
        .select((eb) => eb.fn.sum<number | string | null>("cost_usd").as("total"))
        .where("key_hash", "=", keyHash)
        .where("created_at", ">=", Math.floor(since))
        .executeTakeFirst();
      return row?.total == null ? 0 : toNumber(row.total);
    },
  };
}

/**
 * Inserts the records not stored yet (a flush retried after a failure must neither fail on nor duplicate rows already
 * written) and returns those it inserted.
 */
async function insertNew(trx: Transaction<StoreDatabase>, records: readonly GenerationRecord[]): Promise<GenerationRecord[]> {
  const byId = new Map(records.map((record) => [record.id, record]));
  const inserted: GenerationRecord[] = [];
  const rows = records.map(toRow);
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
    const ids = await trx
      .insertInto("generations")
      .values(rows.slice(i, i + ROWS_PER_INSERT))
      .onConflict((oc) => oc.column("id").doNothing())
      .returning("id")
      .execute();
    for (const { id } of ids) inserted.push(byId.get(id)!);
  }
  return inserted;
}

/** The SQLite write: one transaction; with `bill`, the keys of the records it inserted are charged their cost. */
function writeSqlite(database: Database, records: readonly GenerationRecord[], bill: boolean): void {
  const insert = database.query(INSERT_ONE_SQLITE);
  const inserted: GenerationRecord[] = [];
  // IMMEDIATE, as the driver's transactions: the write lock is taken up front, so busy_timeout applies.
  database.run("begin immediate");
  try {
    for (const record of records) {
      const row = toRow(record);
      // `on conflict do nothing`: a record already stored changes nothing, and is not charged again.
      if (insert.run(...COLUMNS.map((column) => toBinding(row[column]))).changes > 0) inserted.push(record);
    }
    if (bill) {
      const addUsage = database.query(ADD_USAGE_SQLITE);
      for (const [hash, amount] of costByKey(inserted)) addUsage.run(amount, hash);
      const spend = budgetSpend(inserted);
      if (spend.length > 0) {
        const addSpend = database.query(ADD_SPEND_SQLITE);
        for (const row of spend) addSpend.run(row.guardrail_id, row.generation_id, row.created_at, row.cost_usd);
      }
    }
    database.run("commit");
  } catch (error) {
    if (database.inTransaction) database.run("rollback");
    throw error;
  }
}

/** The guardrail budget rows of newly stored records: what each cost under each budget it counted against. */
function budgetSpend(records: readonly GenerationRecord[]) {
  const rows: Array<{ guardrail_id: string; generation_id: string; created_at: number; cost_usd: number }> = [];
  for (const r of records) {
    if (!r.guardrailBudgets || !(r.cost > 0) || !Number.isFinite(r.cost)) continue;
    for (const id of r.guardrailBudgets) rows.push({ guardrail_id: id, generation_id: r.id, created_at: Math.round(r.createdAt), cost_usd: r.cost });
  }
  return rows;
}

/**
 * Cost per key, sorted by key: every flush then locks key rows in the same order, so two concurrent flushes on
 * Postgres cannot deadlock. Free and non-finite costs charge nothing (a non-finite one would poison the total).
 */
function costByKey(records: readonly GenerationRecord[]): Array<[string, number]> {
  const totals = new Map<string, number>();
  for (const { keyHash, cost } of records) if (cost > 0 && Number.isFinite(cost)) totals.set(keyHash, (totals.get(keyHash) ?? 0) + cost);
  return [...totals].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

function toRow(r: GenerationRecord): Insertable<GenerationsTable> {
  return {
    id: r.id,
    workspace_id: r.workspaceId,
    key_hash: r.keyHash,
    format: r.format,
    model: r.model,
    provider_id: r.providerId,
    upstream_model: r.upstreamModel,
    streamed: fromBool(r.streamed),
    status: r.status,
    finish_reason: r.finishReason,
    error_type: r.errorType,
    input_tokens: r.inputTokens,
    cached_input_tokens: r.cachedInputTokens,
    cache_write_tokens: r.cacheWriteTokens,
    output_tokens: r.outputTokens,
    reasoning_tokens: r.reasoningTokens,
    cost_usd: r.cost,
    // Integer columns: Postgres rejects a fractional value (e.g. a latency from performance.now()).
    latency_ms: Math.round(r.latencyMs),
    first_token_ms: r.firstTokenMs === null ? null : Math.round(r.firstTokenMs),
    created_at: Math.round(r.createdAt),
    details: r.details ?? null,
    is_byok: fromBool(r.isByok ?? false),
    byok_cost_usd: r.byokCost ?? 0,
  };
}

function toRecord(row: Selectable<GenerationsTable>): GenerationRecord {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    keyHash: row.key_hash,
    format: row.format,
    model: row.model,
    providerId: row.provider_id,
    upstreamModel: row.upstream_model,
    streamed: toBool(row.streamed),
    status: toNumber(row.status),
    finishReason: row.finish_reason,
    errorType: row.error_type,
    inputTokens: toNumber(row.input_tokens),
    cachedInputTokens: toNumber(row.cached_input_tokens),
    cacheWriteTokens: toNumber(row.cache_write_tokens),
    outputTokens: toNumber(row.output_tokens),
    reasoningTokens: toNumber(row.reasoning_tokens),
    cost: toNumber(row.cost_usd),
    latencyMs: toNumber(row.latency_ms),
    firstTokenMs: toNumberOrNull(row.first_token_ms),
    createdAt: toNumber(row.created_at),
    // Absent rather than null when none was kept (records written before migration 0005, or hand-built ones).
    ...(row.details !== null && row.details !== undefined ? { details: row.details } : {}),
    ...(toBool(row.is_byok ?? 0) ? { isByok: true, byokCost: toNumber(row.byok_cost_usd ?? 0) } : {}),
  };
}
