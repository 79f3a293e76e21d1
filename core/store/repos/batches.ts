/**
 * The batches repository (spec "Batch"). Items are claimed atomically
 * under a lease, so several gateway processes share one batch and each item ends exactly once.
 */
import type { ExpressionBuilder, Insertable, Kysely, Selectable, Updateable } from "kysely";
import type { BatchItemsTable, BatchesTable, StoreDatabase, StoreDialect } from "../schema.ts";
import type { BatchError, BatchItemRecord, BatchItemStatus, BatchPatch, BatchRecord, BatchRepo, BatchStatus, FailItems } from "../types/batches.ts";
import { toNumber, toNumberOrNull } from "./convert.ts";
import { parseObject } from "./presets.ts";

/** Rows per INSERT: 6 columns × 1000 stays far below both dialects' bind-parameter limits. */
const ITEMS_PER_INSERT = 1000;

const TERMINAL: readonly BatchStatus[] = ["completed", "failed", "expired", "cancelled"];

/** Creates the batches repository over a migrated database. */
export function createBatchRepo(db: Kysely<StoreDatabase>, dialect: StoreDialect): BatchRepo {
  /**
   * What `workerId` may claim, in two kinds, each found through the (batch_id, status, idx) index on its own: items
   * never claimed (or given back), and — with `takeOver` — items claimed by another worker whose lease ran out (a
   * crashed or stalled process). Never the worker's own claims: it still holds every one of them (an item waiting for
   * the store to come back keeps its claim), so taking one again would run it twice. One OR of the two kinds made
   * SQLite walk the batch's items in idx order past every finished one on each claim: a 4,000-item batch spent 58 %
   * of its run there, and an 8,000-item one took 54 s.
   */
  const pending = (eb: ExpressionBuilder<StoreDatabase, "batch_items">) => eb("status", "=", "pending");
  const expiredClaims = (now: number, workerId: string) => (eb: ExpressionBuilder<StoreDatabase, "batch_items">) =>
    eb.and([eb("status", "=", "running"), eb("claimed_until", "<", now), eb("claimed_by", "<>", workerId)]);

  return {
    async create(batch) {
      const row: Insertable<BatchesTable> = {
        id: batch.id,
        workspace_id: batch.workspaceId,
        key_hash: batch.keyHash,
        endpoint: batch.endpoint,
        model: batch.model,
        status: "validating",
        completion_window: batch.completionWindow,
        created_at: Math.round(batch.createdAt),
        expires_at: Math.round(batch.expiresAt),
        request_total: batch.items.length,
      };
      const items: Array<Insertable<BatchItemsTable>> = batch.items.map((item, idx) => ({
        id: item.id,
        batch_id: batch.id,
        idx,
        custom_id: item.customId,
        body: JSON.stringify(item.body),
        status: "pending",
      }));
      // One transaction: a batch is never visible without all of its items.
      const created = await db.transaction().execute(async (trx) => {
        const inserted = await trx.insertInto("batches").values(row).returningAll().executeTakeFirstOrThrow();
        for (let i = 0; i < items.length; i += ITEMS_PER_INSERT) {
          await trx.insertInto("batch_items").values(items.slice(i, i + ITEMS_PER_INSERT)).execute();
        }
        return inserted;
      });
      return toBatch(created);
    },

    async get(id) {
      const row = await db.selectFrom("batches").selectAll().where("id", "=", id).executeTakeFirst();
      return row && toBatch(row);
    },

    async list(workspaceId, page) {
      let query = db.selectFrom("batches").selectAll().where("workspace_id", "=", workspaceId);
      const after = page.after;
      if (after) {
        query = query.where((eb) =>
          eb.or([eb("created_at", "<", after.createdAt), eb.and([eb("created_at", "=", after.createdAt), eb("id", "<", after.id)])]),
        );
      }
      const rows = await query.orderBy("created_at", "desc").orderBy("id", "desc").limit(page.limit).execute();
      return rows.map(toBatch);
    },

    async delete(id) {
      return db.transaction().execute(async (trx) => {
        await trx.deleteFrom("batch_items").where("batch_id", "=", id).execute();
        const result = await trx.deleteFrom("batches").where("id", "=", id).executeTakeFirst();
        return result.numDeletedRows > 0n;
      });
    },

    async byStatus(statuses, limit) {
      const rows = await db.selectFrom("batches").selectAll().where("status", "in", [...statuses]).orderBy("created_at", "asc").orderBy("id", "asc").limit(limit).execute();
      return rows.map(toBatch);
    },

    async dueForExpiry(now, limit) {
      const rows = await db
        .selectFrom("batches")
        .selectAll()
        .where("status", "in", ["validating", "in_progress"])
        .where("expires_at", "<=", Math.round(now))
        .limit(limit)
        .execute();
      return rows.map(toBatch);
    },

    async dueForPurge(cutoff, limit) {
      const rows = await db
        .selectFrom("batches")
        .selectAll()
        .where("created_at", "<=", Math.round(cutoff))
        .where("purged_at", "is", null)
        .where("status", "in", [...TERMINAL])
        .limit(limit)
        .execute();
      return rows.map(toBatch);
    },

    async transition(id, from, to, patch, failItems) {
      // The batch row is updated first: on Postgres that locks it, so two transitions of one batch serialise and
      // only the first one matches `status IN from`.
      return db.transaction().execute(async (trx) => {
        const moved = await trx
          .updateTable("batches")
          .set({ status: to, ...toRowPatch(patch) })
          .where("id", "=", id)
          .where("status", "in", [...from])
          .executeTakeFirst();
        if (moved.numUpdatedRows === 0n) return false;
        if (failItems) await failUnfinished(trx, id, failItems);
        return true;
      });
    },

    async counts(batchId) {
      const rows = await db
        .selectFrom("batch_items")
        .select(["status", (eb) => eb.fn.countAll<number | string>().as("n")])
        .where("batch_id", "=", batchId)
        .groupBy("status")
        .execute();
      const counts: Record<BatchItemStatus, number> = { pending: 0, running: 0, completed: 0, failed: 0 };
      for (const row of rows) if (isItemStatus(row.status)) counts[row.status] = toNumber(row.n);
      return counts;
    },

    async hasUnfinished(batchId) {
      const row = await db
        .selectFrom("batch_items")
        .select("id")
        .where("batch_id", "=", batchId)
        .where("status", "in", ["pending", "running"])
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
    },

    async activeRunning(batchId, now) {
      const row = await db
        .selectFrom("batch_items")
        .select((eb) => eb.fn.countAll<number | string>().as("n"))
        .where("batch_id", "=", batchId)
        .where("status", "=", "running")
        .where("claimed_until", ">=", Math.round(now))
        .executeTakeFirstOrThrow();
      return toNumber(row.n);
    },

    async results(batchId) {
      const rows = await db
        .selectFrom("batch_items")
        .select(["id", "batch_id", "idx", "custom_id", "status", "claimed_by", "claimed_until", "attempts", "result", "error", "finished_at"])
        .where("batch_id", "=", batchId)
        .orderBy("idx", "asc")
        .execute();
      return rows.map((row) => toItem({ ...row, body: "{}" }));
    },

    async claim(batchId, workerId, limit, now, leaseMs, takeOver = true) {
      if (limit <= 0) return [];
      const at = Math.round(now);
      const claimed: BatchItemRecord[] = [];
      // Lapsed claims first (the oldest work), then never-claimed items. Each is one statement whose chosen ids are
      // a materialized CTE, evaluated once. Postgres: it locks the chosen rows and SKIP LOCKED makes concurrent
      // claimers pass over each other's rows instead of waiting for (and then double-claiming) them; the outer WHERE
      // re-checks claimability on the locked row version. (As an `IN (subquery)` the planner may run the subquery
      // again per row, each time past the rows just claimed: one call claimed a whole batch, measured.) SQLite: the
      // single UPDATE runs under the database write lock, so no other process can claim between its read and write.
      for (const kind of takeOver ? [expiredClaims(at, workerId), pending] : [pending]) {
        const room = limit - claimed.length;
        if (room <= 0) break;
        const rows = await db
          .with(
            (cte) => cte("picked").materialized(),
            (qb) => {
              const pick = qb.selectFrom("batch_items").select("id").where("batch_id", "=", batchId).where(kind).orderBy("idx", "asc").limit(room);
              return dialect === "postgres" ? pick.forUpdate().skipLocked() : pick;
            },
          )
          .updateTable("batch_items")
          .set((eb) => ({ status: "running", claimed_by: workerId, claimed_until: at + leaseMs, attempts: eb("attempts", "+", 1) }))
          .where("id", "in", (eb) => eb.selectFrom("picked").select("picked.id"))
          .where(kind)
          .returningAll()
          .execute();
        claimed.push(...rows.map(toItem));
      }
      return claimed.sort((a, b) => a.idx - b.idx);
    },

    async renew(workerId, itemIds, until) {
      if (itemIds.length === 0) return;
      await db
        .updateTable("batch_items")
        .set({ claimed_until: Math.round(until) })
        .where("claimed_by", "=", workerId)
        .where("status", "=", "running")
        .where("id", "in", [...itemIds])
        .execute();
    },

    async finish(itemId, workerId, ending, now) {
      // Conditional on still holding the claim: a worker whose lease was taken over (or whose batch expired or was
      // cancelled meanwhile) writes nothing, so every item has exactly one ending.
      const result = await db
        .updateTable("batch_items")
        .set({
          status: ending.status,
          result: ending.status === "completed" ? JSON.stringify(ending.result) : null,
          error: ending.status === "failed" ? JSON.stringify(ending.error) : null,
          claimed_until: null,
          finished_at: Math.round(now),
        })
        .where("id", "=", itemId)
        .where("claimed_by", "=", workerId)
        .where("status", "=", "running")
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    async release(itemId, workerId) {
      await db
        .updateTable("batch_items")
        .set({ status: "pending", claimed_until: null })
        .where("id", "=", itemId)
        .where("claimed_by", "=", workerId)
        .where("status", "=", "running")
        .execute();
    },

    async claimHolders(batchId) {
      const rows = await db
        .selectFrom("batch_items")
        .select("claimed_by")
        .distinct()
        .where("batch_id", "=", batchId)
        .where("status", "=", "running")
        .where("claimed_by", "is not", null)
        .execute();
      return rows.map((row) => row.claimed_by!);
    },

    async releaseClaimsOf(batchId, workerId, keep = []) {
      let query = db
        .updateTable("batch_items")
        .set({ status: "pending", claimed_until: null })
        .where("batch_id", "=", batchId)
        .where("claimed_by", "=", workerId)
        .where("status", "=", "running");
      if (keep.length > 0) query = query.where("id", "not in", [...keep]);
      const result = await query.executeTakeFirst();
      return Number(result.numUpdatedRows);
    },

    async purge(batchId, now) {
      await db.transaction().execute(async (trx) => {
        await trx.deleteFrom("batch_items").where("batch_id", "=", batchId).execute();
        await trx.updateTable("batches").set({ purged_at: Math.round(now) }).where("id", "=", batchId).execute();
      });
    },
  };
}

async function failUnfinished(trx: Kysely<StoreDatabase>, batchId: string, fail: FailItems): Promise<void> {
  await trx
    .updateTable("batch_items")
    .set({ status: "failed", error: JSON.stringify(fail.error), claimed_until: null, finished_at: Math.round(fail.now) })
    .where("batch_id", "=", batchId)
    .where("status", "in", [...fail.statuses])
    .execute();
}

function toRowPatch(patch: BatchPatch): Updateable<BatchesTable> {
  const row: Updateable<BatchesTable> = {};
  // bigint columns reject a fractional millisecond on Postgres.
  const stamp = (value: number | null) => (value === null ? null : Math.round(value));
  if (patch.inProgressAt !== undefined) row.in_progress_at = stamp(patch.inProgressAt);
  if (patch.finalizingAt !== undefined) row.finalizing_at = stamp(patch.finalizingAt);
  if (patch.finalizedAt !== undefined) row.finalized_at = stamp(patch.finalizedAt);
  if (patch.cancellingAt !== undefined) row.cancelling_at = stamp(patch.cancellingAt);
  if (patch.cancelledAt !== undefined) row.cancelled_at = stamp(patch.cancelledAt);
  if (patch.purgedAt !== undefined) row.purged_at = stamp(patch.purgedAt);
  if (patch.error !== undefined) row.error = patch.error === null ? null : JSON.stringify(patch.error);
  if (patch.requestCompleted !== undefined) row.request_completed = patch.requestCompleted;
  if (patch.requestFailed !== undefined) row.request_failed = patch.requestFailed;
  if (patch.usage !== undefined) row.usage = patch.usage === null ? null : JSON.stringify(patch.usage);
  if (patch.cost !== undefined) row.cost_usd = patch.cost;
  return row;
}

const STATUSES: ReadonlySet<string> = new Set<BatchStatus>(["validating", "in_progress", "finalizing", "completed", "failed", "expired", "cancelling", "cancelled"]);

function isItemStatus(value: string): value is BatchItemStatus {
  return value === "pending" || value === "running" || value === "completed" || value === "failed";
}

function toBatch(row: Selectable<BatchesTable>): BatchRecord {
  if (!STATUSES.has(row.status)) throw new TypeError(`store: unknown batch status ${row.status}`);
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    keyHash: row.key_hash,
    endpoint: row.endpoint,
    model: row.model,
    status: row.status as BatchStatus,
    completionWindow: row.completion_window,
    createdAt: toNumber(row.created_at),
    inProgressAt: toNumberOrNull(row.in_progress_at),
    finalizingAt: toNumberOrNull(row.finalizing_at),
    finalizedAt: toNumberOrNull(row.finalized_at),
    cancellingAt: toNumberOrNull(row.cancelling_at),
    cancelledAt: toNumberOrNull(row.cancelled_at),
    expiresAt: toNumber(row.expires_at),
    error: row.error === null ? null : toBatchError(parseObject(row.error)),
    requestTotal: toNumber(row.request_total),
    requestCompleted: toNumberOrNull(row.request_completed),
    requestFailed: toNumberOrNull(row.request_failed),
    usage: row.usage === null ? null : parseObject(row.usage),
    cost: toNumberOrNull(row.cost_usd),
    purgedAt: toNumberOrNull(row.purged_at),
  };
}

function toBatchError(value: Record<string, unknown>): BatchError {
  const error: BatchError = { message: typeof value.message === "string" ? value.message : "" };
  if (typeof value.code === "number") error.code = value.code;
  return error;
}

function toItem(row: Selectable<BatchItemsTable>): BatchItemRecord {
  if (!isItemStatus(row.status)) throw new TypeError(`store: unknown batch item status ${row.status}`);
  return {
    id: row.id,
    batchId: row.batch_id,
    idx: toNumber(row.idx),
    customId: row.custom_id,
    body: parseObject(row.body),
    status: row.status,
    claimedBy: row.claimed_by,
    claimedUntil: toNumberOrNull(row.claimed_until),
    attempts: toNumber(row.attempts),
    result: row.result === null ? null : parseObject(row.result),
    error: row.error === null ? null : parseObject(row.error),
    finishedAt: toNumberOrNull(row.finished_at),
  };
}
