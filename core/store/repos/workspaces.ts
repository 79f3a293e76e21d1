/** The workspaces repository (ARCHITECTURE §5). */
import type { Kysely, Selectable } from "kysely";
import type { StoreClock } from "../clock.ts";
import type { StoreDatabase, WorkspacesTable } from "../schema.ts";
import type { Workspace, WorkspaceRepo } from "../types/workspaces.ts";
import { toNumber } from "./convert.ts";

/**
 * The default workspace's fixed, well-known id. Fixed rather than random so that processes starting at once on one
 * database all converge on the same row through the primary key, with no lock.
 */
export const DEFAULT_WORKSPACE_ID = "00000000-0000-4000-8000-000000000001";

/** The default workspace's name when first created. */
export const DEFAULT_WORKSPACE_NAME = "default";

/** Creates the workspaces repository over a migrated database. */
export function createWorkspaceRepo(db: Kysely<StoreDatabase>, clock: StoreClock): WorkspaceRepo {
  async function get(id: string): Promise<Workspace | undefined> {
    const row = await db.selectFrom("workspaces").selectAll().where("id", "=", id).executeTakeFirst();
    return row && toWorkspace(row);
  }

  return {
    get,
    async create(name) {
      const workspace = { id: crypto.randomUUID(), name, created_at: Math.round(clock.now()) };
      await db.insertInto("workspaces").values(workspace).execute();
      return { id: workspace.id, name, createdAt: workspace.created_at };
    },
    async ensureDefault() {
      // Insert-or-nothing, then read: race-safe on both dialects, and the first writer's row wins everywhere.
      await db
        .insertInto("workspaces")
        .values({ id: DEFAULT_WORKSPACE_ID, name: DEFAULT_WORKSPACE_NAME, created_at: Math.round(clock.now()) })
        .onConflict((oc) => oc.column("id").doNothing())
        .execute();
      const workspace = await get(DEFAULT_WORKSPACE_ID);
      if (!workspace) throw new Error("store: the default workspace vanished right after being ensured");
      return workspace;
    },
  };
}

function toWorkspace(row: Selectable<WorkspacesTable>): Workspace {
  return { id: row.id, name: row.name, createdAt: toNumber(row.created_at) };
}
