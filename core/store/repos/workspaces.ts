/** The workspaces repository: workspaces, their settings and their budgets. */
import type { Kysely, Selectable } from "kysely";
import type { StoreClock } from "../clock.ts";
import type { StoreDatabase, WorkspaceBudgetsTable, WorkspacesTable } from "../schema.ts";
import { SlugTaken, type BudgetInterval, type NewWorkspace, type Workspace, type WorkspaceBudget, type WorkspaceRepo, type WorkspaceSettings } from "../types/workspaces.ts";
import { fromBool, toBool, toNumber, toNumberOrNull } from "./convert.ts";

/**
 * The default workspace's fixed, well-known id. Fixed rather than random so that processes starting at once on one
 * database all converge on the same row through the primary key, with no lock.
 */
export const DEFAULT_WORKSPACE_ID = "00000000-0000-4000-8000-000000000001";

/** The default workspace's name (and slug) when first created. */
export const DEFAULT_WORKSPACE_NAME = "default";

/** Creates the workspaces repository over a migrated database. */
export function createWorkspaceRepo(db: Kysely<StoreDatabase>, clock: StoreClock): WorkspaceRepo {
  async function get(id: string): Promise<Workspace | undefined> {
    const row = await db.selectFrom("workspaces").selectAll().where("id", "=", id).executeTakeFirst();
    return row && toWorkspace(row);
  }

  const slugFree = async (slug: string, except?: string) => {
    let query = db.selectFrom("workspaces").select("id").where("slug", "=", slug);
    if (except) query = query.where("id", "!=", except);
    return (await query.executeTakeFirst()) === undefined;
  };

  async function create(input: NewWorkspace | string): Promise<Workspace | undefined> {
    const id = crypto.randomUUID();
    const fields: NewWorkspace =
      typeof input === "string" ? { name: input, slug: `${slugOf(input)}-${id.slice(0, 8)}`, description: null, settings: {} } : input;
    const now = Math.round(clock.now());
    const row = { id, name: fields.name, slug: fields.slug, description: fields.description, created_at: now, updated_at: now, settings: settingsText(fields.settings) };
    if (!(await slugFree(fields.slug))) return undefined;
    try {
      await db.insertInto("workspaces").values(row).execute();
    } catch (error) {
      // The unique index decides a race between two creates of one slug.
      if (!(await slugFree(fields.slug, id))) return undefined;
      throw error;
    }
    return (await get(id))!;
  }

  return {
    get,
    create: create as WorkspaceRepo["create"],
    async ensureDefault() {
      // Insert-or-nothing, then read: race-safe on both dialects, and the first writer's row wins everywhere. No
      // conflict target: two processes inserting the row at once collide on the slug's unique index as well as on
      // the id, and Postgres ignores only the conflicts of the target it is given.
      await db
        .insertInto("workspaces")
        .values({ id: DEFAULT_WORKSPACE_ID, name: DEFAULT_WORKSPACE_NAME, slug: DEFAULT_WORKSPACE_NAME, created_at: Math.round(clock.now()) })
        .onConflict((oc) => oc.doNothing())
        .execute();
      const workspace = await get(DEFAULT_WORKSPACE_ID);
      if (!workspace) throw new Error("store: the default workspace vanished right after being ensured");
      return workspace;
    },
    async list({ offset, limit }) {
      const rows = await db.selectFrom("workspaces").selectAll().orderBy("created_at", "asc").orderBy("id", "asc").limit(limit).offset(offset).execute();
      const total = await db.selectFrom("workspaces").select((eb) => eb.fn.countAll<number | string>().as("n")).executeTakeFirstOrThrow();
      return { workspaces: rows.map(toWorkspace), total: toNumber(total.n) };
    },
    async update(id, patch) {
      if (patch.slug !== undefined && !(await slugFree(patch.slug, id))) throw new SlugTaken(patch.slug);
      const changes: Partial<Record<keyof WorkspacesTable, unknown>> = {};
      if (patch.name !== undefined) changes.name = patch.name;
      if (patch.slug !== undefined) changes.slug = patch.slug;
      if (patch.description !== undefined) changes.description = patch.description;
      if (patch.settings !== undefined) changes.settings = settingsText(patch.settings);
      if (patch.includeByokInBudgets !== undefined) changes.include_byok_in_budgets = fromBool(patch.includeByokInBudgets);
      const result = await db
        .updateTable("workspaces")
        .set({ ...(changes as object), updated_at: Math.round(clock.now()) })
        .where("id", "=", id)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n ? get(id) : undefined;
    },
    async delete(id) {
      return db.transaction().execute(async (trx) => {
        await trx.deleteFrom("workspace_budgets").where("workspace_id", "=", id).execute();
        const result = await trx.deleteFrom("workspaces").where("id", "=", id).executeTakeFirst();
        return result.numDeletedRows > 0n;
      });
    },
    async budgets(workspaceId) {
      const rows = await db.selectFrom("workspace_budgets").selectAll().where("workspace_id", "=", workspaceId).execute();
      return rows.map(toBudget).sort((a, b) => INTERVALS.indexOf(a.interval) - INTERVALS.indexOf(b.interval));
    },
    async setBudget(workspaceId, interval, limitUsd) {
      const now = Math.round(clock.now());
      await db
        .insertInto("workspace_budgets")
        .values({ workspace_id: workspaceId, interval, limit_usd: limitUsd, created_at: now, updated_at: now })
        .onConflict((oc) => oc.columns(["workspace_id", "interval"]).doUpdateSet({ limit_usd: limitUsd, updated_at: now }))
        .execute();
      const row = await db.selectFrom("workspace_budgets").selectAll().where("workspace_id", "=", workspaceId).where("interval", "=", interval).executeTakeFirstOrThrow();
      return toBudget(row);
    },
    async deleteBudget(workspaceId, interval) {
      const result = await db.deleteFrom("workspace_budgets").where("workspace_id", "=", workspaceId).where("interval", "=", interval).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },
    async costSince(workspaceId, since) {
      const row = await db
        .selectFrom("generations")
        .select((eb) => eb.fn.sum<number | string | null>("cost_usd").as("total"))
        .where("workspace_id", "=", workspaceId)
        .where("created_at", ">=", Math.floor(since))
        .executeTakeFirst();
      return row?.total == null ? 0 : toNumber(row.total);
    },
    async purgeGenerations(workspaceId, before) {
      const result = await db.deleteFrom("generations").where("workspace_id", "=", workspaceId).where("created_at", "<", Math.floor(before)).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}

const INTERVALS: readonly BudgetInterval[] = ["daily", "weekly", "monthly", "lifetime"];

function slugOf(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 48) || "workspace";
}

function settingsText(settings: WorkspaceSettings): string | null {
  return Object.keys(settings).length === 0 ? null : JSON.stringify(settings);
}

function toWorkspace(row: Selectable<WorkspacesTable>): Workspace {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug ?? row.id,
    description: row.description ?? null,
    createdAt: toNumber(row.created_at),
    updatedAt: toNumberOrNull(row.updated_at ?? null),
    settings: row.settings ? (JSON.parse(row.settings) as WorkspaceSettings) : {},
    includeByokInBudgets: toBool(row.include_byok_in_budgets ?? 0),
  };
}

function toBudget(row: Selectable<WorkspaceBudgetsTable>): WorkspaceBudget {
  return {
    workspaceId: row.workspace_id,
    interval: row.interval as BudgetInterval,
    limitUsd: toNumber(row.limit_usd),
    createdAt: toNumber(row.created_at),
    updatedAt: toNumber(row.updated_at),
  };
}
