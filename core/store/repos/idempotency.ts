/** Stored replies of idempotent requests; reads never return an expired one, `sweep` deletes them. */
import type { Kysely } from "kysely";
import type { StoreDatabase } from "../schema.ts";
import type { IdempotencyRepo } from "../types/idempotency.ts";
import { toNumber } from "./convert.ts";

export function createIdempotencyRepo(db: Kysely<StoreDatabase>): IdempotencyRepo {
  return {
    async get(id, now) {
      const row = await db.selectFrom("idempotency_replies").selectAll().where("id", "=", id).where("expires_at", ">", now).executeTakeFirst();
      if (!row) return undefined;
      return {
        id: row.id,
        bodyDigest: row.body_digest,
        status: toNumber(row.status),
        headers: JSON.parse(row.headers) as Record<string, string>,
        body: row.body,
        createdAt: toNumber(row.created_at),
        expiresAt: toNumber(row.expires_at),
      };
    },

    async put(reply) {
      const row = {
        id: reply.id,
        body_digest: reply.bodyDigest,
        status: reply.status,
        headers: JSON.stringify(reply.headers),
        body: reply.body,
        created_at: Math.round(reply.createdAt),
        expires_at: Math.round(reply.expiresAt),
      };
      // An expired row under the same id may still be there (the sweep is periodic): the new reply replaces it.
      const { id: _id, ...rest } = row;
      await db.insertInto("idempotency_replies").values(row).onConflict((oc) => oc.column("id").doUpdateSet(rest)).execute();
    },

    async sweep(now) {
      const result = await db.deleteFrom("idempotency_replies").where("expires_at", "<=", now).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
