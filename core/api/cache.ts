/**
 * `DELETE /cache` (README "Response cache"): drops a workspace's cached answers, of one requested model
 * (`?model=`) or all of them. Management keys only; a key acts on its own workspace. The operator (the config's admin
 * key) may name another with `?workspace_id=`; any other key naming a workspace not its own gets 404, as for every
 * other object of another workspace.
 */
import { Elysia, t } from "elysia";
import type { Authenticator } from "../auth/authenticate.ts";
import type { Principal } from "../auth/principal.ts";
import { workspaceGroups } from "../cache/key.ts";
import { dropEntries } from "../cache/store.ts";
import type { Deps } from "../deps.ts";
import { errors } from "../errors.ts";
import { managementOnly } from "./management-only.ts";

const DropQuery = t.Object({
  model: t.Optional(t.String({ minLength: 1, maxLength: 512, description: "Only the entries of requests that asked for this model" })),
  workspace_id: t.Optional(t.String({ minLength: 1, maxLength: 128, description: "The operator only: another workspace's entries" })),
});

/**
 * Whether `principal` acts for every workspace. Today only the config's admin key does; operator management keys
 * join here when workspaces can be managed.
 */
function isOperator(principal: Principal): boolean {
  return principal.record === undefined;
}

export function cacheRoutes(deps: Deps, auth: Authenticator) {
  return new Elysia({ name: "routes:cache" })
    .use(managementOnly(auth))
    .guard({ management: true })
    .delete(
      "/cache",
      async ({ query, principal }) => {
        const named = query.workspace_id;
        if (named !== undefined && named !== principal.workspaceId) {
          if (!isOperator(principal) || !(await deps.store.workspaces.get(named))) throw errors.notFound("Workspace not found");
        }
        const workspaceId = named ?? principal.workspaceId;
        const [all, ofModel] = workspaceGroups(workspaceId, query.model ?? "");
        const deleted = await dropEntries(deps, query.model === undefined ? all : ofModel);
        return { data: { workspace_id: workspaceId, model: query.model ?? null, deleted } };
      },
      { query: DropQuery, detail: { summary: "Drop cached answers of a workspace (of one model, or all)", tags: ["cache"] } },
    );
}
