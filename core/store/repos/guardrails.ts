/** The guardrails repository: policies, assignments and budget spending. JSON travels as text. */
import type { Kysely, Selectable, Updateable } from "kysely";
import type { StoreClock } from "../clock.ts";
import type { GuardrailAssignmentsTable, GuardrailsTable, StoreDatabase } from "../schema.ts";
import type { AppliedGuardrail, AssignmentRecord, AssignmentScope, GuardrailPatch, GuardrailRecord, GuardrailRepo } from "../types/guardrails.ts";
import type { LimitReset } from "../types/keys.ts";
import { toNumber, toNumberOrNull } from "./convert.ts";

export function createGuardrailRepo(db: Kysely<StoreDatabase>, clock: StoreClock): GuardrailRepo {
  const now = () => Math.round(clock.now());

  return {
    async create(g) {
      const at = now();
      const row = await db
        .insertInto("guardrails")
        .values({
          id: g.id,
          workspace_id: g.workspaceId,
          name: g.name,
          description: g.description,
          limit_usd: g.limitUsd,
          reset_interval: g.resetInterval,
          allowed_models: jsonOrNull(g.allowedModels),
          ignored_models: jsonOrNull(g.ignoredModels),
          allowed_providers: jsonOrNull(g.allowedProviders),
          ignored_providers: jsonOrNull(g.ignoredProviders),
          content_filters: JSON.stringify(g.contentFilters),
          content_filter_builtins: JSON.stringify(g.contentFilterBuiltins),
          apply_to: g.applyTo,
          options: JSON.stringify(g.options),
          created_at: at,
          updated_at: at,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toRecord(row);
    },

    async get(id, workspaceId) {
      const row = await db.selectFrom("guardrails").selectAll().where("id", "=", id).where("workspace_id", "=", workspaceId).executeTakeFirst();
      return row && toRecord(row);
    },

    async list(workspaceId, page) {
      const [rows, count] = await Promise.all([
        db
          .selectFrom("guardrails")
          .selectAll()
          .where("workspace_id", "=", workspaceId)
          .orderBy("created_at", "asc")
          .orderBy("id", "asc")
          .limit(page.limit)
          .offset(page.offset)
          .execute(),
        db.selectFrom("guardrails").select((eb) => eb.fn.countAll<number | string>().as("n")).where("workspace_id", "=", workspaceId).executeTakeFirstOrThrow(),
      ]);
      return { data: rows.map(toRecord), total: toNumber(count.n) };
    },

    async update(id, workspaceId, patch) {
      const row = await db
        .updateTable("guardrails")
        .set({ ...toColumns(patch), updated_at: now() })
        .where("id", "=", id)
        .where("workspace_id", "=", workspaceId)
        .returningAll()
        .executeTakeFirst();
      return row && toRecord(row);
    },

    async delete(id, workspaceId) {
      return db.transaction().execute(async (trx) => {
        const result = await trx.deleteFrom("guardrails").where("id", "=", id).where("workspace_id", "=", workspaceId).executeTakeFirst();
        if (result.numDeletedRows === 0n) return false;
        await trx.deleteFrom("guardrail_assignments").where("guardrail_id", "=", id).execute();
        return true;
      });
    },

    async assign(guardrailId, workspaceId, scope, targets, ids) {
      if (targets.length === 0) return 0;
      const at = now();
      const rows = [...new Set(targets)].map((target) => ({ id: ids(), guardrail_id: guardrailId, workspace_id: workspaceId, scope, target, created_at: at }));
      // Already assigned: left as it is (and not counted), on both dialects.
      const inserted = await db
        .insertInto("guardrail_assignments")
        .values(rows)
        .onConflict((oc) => oc.columns(["guardrail_id", "scope", "target"]).doNothing())
        .returning("id")
        .execute();
      return inserted.length;
    },

    async unassign(guardrailId, scope, targets) {
      if (targets.length === 0) return 0;
      const result = await db
        .deleteFrom("guardrail_assignments")
        .where("guardrail_id", "=", guardrailId)
        .where("scope", "=", scope)
        .where("target", "in", [...new Set(targets)])
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },

    async assignments(workspaceId, scope, page) {
      let rows = db.selectFrom("guardrail_assignments").where("workspace_id", "=", workspaceId).where("scope", "=", scope);
      if (page.guardrailId !== undefined) rows = rows.where("guardrail_id", "=", page.guardrailId);
      const [data, count] = await Promise.all([
        rows.selectAll().orderBy("created_at", "asc").orderBy("id", "asc").limit(page.limit).offset(page.offset).execute(),
        rows.select((eb) => eb.fn.countAll<number | string>().as("n")).executeTakeFirstOrThrow(),
      ]);
      return { data: data.map(toAssignment), total: toNumber(count.n) };
    },

    async applying(workspaceId, keyHash) {
      const rows = await db
        .selectFrom("guardrail_assignments as a")
        .innerJoin("guardrails as g", "g.id", "a.guardrail_id")
        .selectAll("g")
        .select("a.scope as assignment_scope")
        .where("g.workspace_id", "=", workspaceId)
        .where((eb) => eb.or([eb.and([eb("a.scope", "=", "key"), eb("a.target", "=", keyHash)]), eb.and([eb("a.scope", "=", "workspace"), eb("a.target", "=", workspaceId)])]))
        .orderBy("g.created_at", "asc")
        .orderBy("g.id", "asc")
        .execute();
      // Assigned to the key and to its workspace: one guardrail, reported with the key's scope.
      const byId = new Map<string, AppliedGuardrail>();
      for (const row of rows) {
        const scope = row.assignment_scope as AssignmentScope;
        const seen = byId.get(row.id);
        if (!seen || scope === "key") byId.set(row.id, { record: toRecord(row), scope });
      }
      return [...byId.values()];
    },

    async spentSince(guardrailId, since) {
      const row = await db
        .selectFrom("guardrail_spend")
        .select((eb) => eb.fn.sum<number | string | null>("cost_usd").as("total"))
        .where("guardrail_id", "=", guardrailId)
        .where("created_at", ">=", Math.floor(since))
        .executeTakeFirst();
      return row?.total == null ? 0 : toNumber(row.total);
    },
  };
}

/** The columns a patch sets; `undefined` fields are left out, collections replace the stored ones. */
function toColumns(g: GuardrailPatch): Updateable<GuardrailsTable> {
  const row: Updateable<GuardrailsTable> = {};
  if (g.name !== undefined) row.name = g.name;
  if (g.description !== undefined) row.description = g.description;
  if (g.limitUsd !== undefined) row.limit_usd = g.limitUsd;
  if (g.resetInterval !== undefined) row.reset_interval = g.resetInterval;
  if (g.allowedModels !== undefined) row.allowed_models = jsonOrNull(g.allowedModels);
  if (g.ignoredModels !== undefined) row.ignored_models = jsonOrNull(g.ignoredModels);
  if (g.allowedProviders !== undefined) row.allowed_providers = jsonOrNull(g.allowedProviders);
  if (g.ignoredProviders !== undefined) row.ignored_providers = jsonOrNull(g.ignoredProviders);
  if (g.contentFilters !== undefined) row.content_filters = JSON.stringify(g.contentFilters);
  if (g.contentFilterBuiltins !== undefined) row.content_filter_builtins = JSON.stringify(g.contentFilterBuiltins);
  if (g.applyTo !== undefined) row.apply_to = g.applyTo;
  if (g.options !== undefined) row.options = JSON.stringify(g.options);
  return row;
}

function jsonOrNull(value: unknown): string | null {
  return value === null ? null : JSON.stringify(value);
}

function parsed<T>(text: string | null, fallback: T): T {
  return text === null ? fallback : (JSON.parse(text) as T);
}

function toRecord(row: Selectable<GuardrailsTable>): GuardrailRecord {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    name: row.name,
    description: row.description,
    limitUsd: toNumberOrNull(row.limit_usd),
    resetInterval: toReset(row.reset_interval),
    allowedModels: parsed(row.allowed_models, null),
    ignoredModels: parsed(row.ignored_models, null),
    allowedProviders: parsed(row.allowed_providers, null),
    ignoredProviders: parsed(row.ignored_providers, null),
    contentFilters: parsed(row.content_filters, []),
    contentFilterBuiltins: parsed(row.content_filter_builtins, []),
    applyTo: row.apply_to === "output" || row.apply_to === "both" ? row.apply_to : "input",
    options: parsed(row.options, {}),
    createdAt: toNumber(row.created_at),
    updatedAt: toNumber(row.updated_at),
  };
}

function toAssignment(row: Selectable<GuardrailAssignmentsTable>): AssignmentRecord {
  return {
    id: row.id,
    guardrailId: row.guardrail_id,
    workspaceId: row.workspace_id,
    scope: row.scope === "workspace" ? "workspace" : "key",
    target: row.target,
    createdAt: toNumber(row.created_at),
  };
}

function toReset(value: string | null): LimitReset | null {
  return value === "daily" || value === "weekly" || value === "monthly" ? value : null;
}

