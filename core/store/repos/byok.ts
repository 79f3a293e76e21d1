/** The BYOK credentials repository: ciphertext in, ciphertext out; never a plaintext key. */
import type { Kysely, Selectable } from "kysely";
import type { StoreClock } from "../clock.ts";
import type { ByokCredentialsTable, StoreDatabase } from "../schema.ts";
import type { ByokPatch, ByokRecord, ByokRepo } from "../types/byok.ts";
import { fromBool, toBool, toNumber } from "./convert.ts";

export function createByokRepo(db: Kysely<StoreDatabase>, clock: StoreClock): ByokRepo {
  const get = async (id: string, workspaceId: string) => {
    const row = await db.selectFrom("byok_credentials").selectAll().where("id", "=", id).where("workspace_id", "=", workspaceId).executeTakeFirst();
    return row && toRecord(row);
  };
  return {
    get,
    async create(r) {
      const now = Math.round(clock.now());
      await db
        .insertInto("byok_credentials")
        .values({
          id: r.id,
          workspace_id: r.workspaceId,
          key_hash: r.keyHash,
          provider: r.provider,
          name: r.name,
          secret: r.secret,
          last4: r.last4,
          byok_only: fromBool(r.byokOnly),
          disabled: fromBool(r.disabled),
          allowed_models: r.allowedModels ? JSON.stringify(r.allowedModels) : null,
          created_at: now,
          updated_at: now,
        })
        .execute();
      return (await get(r.id, r.workspaceId))!;
    },
    async list(workspaceId, { provider, offset, limit }) {
      let query = db.selectFrom("byok_credentials").where("workspace_id", "=", workspaceId);
      if (provider !== undefined) query = query.where("provider", "=", provider);
      const rows = await query.selectAll().orderBy("created_at", "asc").orderBy("id", "asc").limit(limit).offset(offset).execute();
      const total = await query.select((eb) => eb.fn.countAll<number | string>().as("n")).executeTakeFirstOrThrow();
      return { data: rows.map(toRecord), total: toNumber(total.n) };
    },
    async all(workspaceId) {
      const rows = await db.selectFrom("byok_credentials").selectAll().where("workspace_id", "=", workspaceId).orderBy("created_at", "asc").execute();
      return rows.map(toRecord);
    },
    async update(id, workspaceId, patch: ByokPatch) {
      const set: Partial<Record<keyof ByokCredentialsTable, unknown>> = { updated_at: Math.round(clock.now()) };
      if (patch.name !== undefined) set.name = patch.name;
      if (patch.secret !== undefined) set.secret = patch.secret;
      if (patch.last4 !== undefined) set.last4 = patch.last4;
      if (patch.byokOnly !== undefined) set.byok_only = fromBool(patch.byokOnly);
      if (patch.disabled !== undefined) set.disabled = fromBool(patch.disabled);
      if (patch.allowedModels !== undefined) set.allowed_models = patch.allowedModels ? JSON.stringify(patch.allowedModels) : null;
      await db.updateTable("byok_credentials").set(set as object).where("id", "=", id).where("workspace_id", "=", workspaceId).execute();
      return get(id, workspaceId);
    },
    async delete(id, workspaceId) {
      const result = await db.deleteFrom("byok_credentials").where("id", "=", id).where("workspace_id", "=", workspaceId).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },
  };
}

function toRecord(row: Selectable<ByokCredentialsTable>): ByokRecord {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    keyHash: row.key_hash,
    provider: row.provider,
    name: row.name,
    secret: row.secret,
    last4: row.last4,
    byokOnly: toBool(row.byok_only),
    disabled: toBool(row.disabled),
    allowedModels: row.allowed_models ? (JSON.parse(row.allowed_models) as string[]) : null,
    createdAt: toNumber(row.created_at),
    updatedAt: toNumber(row.updated_at),
  };
}
