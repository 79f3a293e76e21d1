/**
 * The reads behind the admin page's generation log and usage plots: a page of one workspace's generations (newest
 * first, keyset-paged on `(created_at, id)`, index `generations_workspace_created_idx`) and usage summed per UTC
 * day. Days are integer division of the Unix-ms column on both dialects; weeks and months are rolled up from days
 * by the caller, so the SQL stays the same on SQLite and Postgres.
 */
import { sql, type Kysely } from "kysely";
import type { StoreDatabase } from "../schema.ts";
import type { DailyUsage, GenerationQuery } from "../types/generations.ts";
import { toNumber } from "./convert.ts";

const DAY_MS = 86_400_000;

export function listGenerations(db: Kysely<StoreDatabase>, workspaceId: string, query: GenerationQuery) {
  let q = db.selectFrom("generations").selectAll().where("workspace_id", "=", workspaceId);
  const before = query.before;
  if (before) {
    q = q.where((eb) => eb.or([eb("created_at", "<", before.createdAt), eb.and([eb("created_at", "=", before.createdAt), eb("id", "<", before.id)])]));
  }
  if (query.model !== undefined) q = q.where("model", "=", query.model);
  if (query.providerId !== undefined) q = q.where("provider_id", "=", query.providerId);
  if (query.keyHash !== undefined) q = q.where("key_hash", "=", query.keyHash);
  if (query.outcome === "success") q = q.where("status", "=", 200);
  if (query.outcome === "error") q = q.where("status", "<>", 200);
  return q.orderBy("created_at", "desc").orderBy("id", "desc").limit(query.limit).execute();
}

const GROUP_COLUMN = { key: "key_hash", model: "model", provider: "provider_id" } as const;

export async function usageByDay(db: Kysely<StoreDatabase>, workspaceId: string, range: { from: number; to: number; groupBy: keyof typeof GROUP_COLUMN }): Promise<DailyUsage[]> {
  const column = sql.ref(GROUP_COLUMN[range.groupBy]);
  const rows = await db
    .selectFrom("generations")
    .select([
      sql<number | string>`created_at / ${sql.lit(DAY_MS)}`.as("day"),
      sql<string | null>`${column}`.as("grp"),
      (eb) => eb.fn.countAll<number | string>().as("requests"),
      (eb) => eb.fn.sum<number | string>("input_tokens").as("input_tokens"),
      (eb) => eb.fn.sum<number | string>("output_tokens").as("output_tokens"),
      (eb) => eb.fn.sum<number | string>("cost_usd").as("cost"),
    ])
    .where("workspace_id", "=", workspaceId)
    .where("created_at", ">=", Math.floor(range.from))
    .where("created_at", "<", Math.ceil(range.to))
    .groupBy([sql`1`, sql`2`])
    .orderBy(sql`1`)
    .execute();
  return rows.map((row) => ({
    day: Math.floor(toNumber(row.day)),
    group: row.grp ?? "none",
    requests: toNumber(row.requests),
    inputTokens: toNumber(row.input_tokens ?? 0),
    outputTokens: toNumber(row.output_tokens ?? 0),
    cost: toNumber(row.cost ?? 0),
  }));
}
