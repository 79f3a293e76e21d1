/** Admissions to beta features (the `alignment` plugin), per key or workspace. */
import type { Kysely } from "kysely";
import type { StoreClock } from "../clock.ts";
import type { StoreDatabase } from "../schema.ts";
import type { AdmissionRepo } from "../types/admissions.ts";
import { toNumber } from "./convert.ts";

export function createAdmissionRepo(db: Kysely<StoreDatabase>, clock: StoreClock): AdmissionRepo {
  return {
    async admit(feature, workspaceId, scope, targets) {
      if (targets.length === 0) return 0;
      const at = Math.round(clock.now());
      const rows = [...new Set(targets)].map((target) => ({ feature, scope, target, workspace_id: workspaceId, created_at: at }));
      const inserted = await db
        .insertInto("beta_admissions")
        .values(rows)
        .onConflict((oc) => oc.columns(["feature", "scope", "target"]).doNothing())
        .returning("target")
        .execute();
      return inserted.length;
    },

    async revoke(feature, workspaceId, scope, targets) {
      if (targets.length === 0) return 0;
      const result = await db
        .deleteFrom("beta_admissions")
        .where("feature", "=", feature)
        .where("workspace_id", "=", workspaceId)
        .where("scope", "=", scope)
        .where("target", "in", [...new Set(targets)])
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },

    async list(feature, workspaceId) {
      const rows = await db
        .selectFrom("beta_admissions")
        .selectAll()
        .where("feature", "=", feature)
        .where("workspace_id", "=", workspaceId)
        .orderBy("created_at", "asc")
        .orderBy("target", "asc")
        .execute();
      return rows.map((r) => ({ feature: r.feature, scope: r.scope === "workspace" ? "workspace" : "key", target: r.target, workspaceId: r.workspace_id, createdAt: toNumber(r.created_at) }));
    },

    async admitted(feature, workspaceId, keyHash) {
      const row = await db
        .selectFrom("beta_admissions")
        .select("target")
        .where("feature", "=", feature)
        .where((eb) => eb.or([eb.and([eb("scope", "=", "key"), eb("target", "=", keyHash)]), eb.and([eb("scope", "=", "workspace"), eb("target", "=", workspaceId)])]))
        .executeTakeFirst();
      return row !== undefined;
    },
  };
}
