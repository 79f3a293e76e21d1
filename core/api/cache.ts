/**
 * `DELETE /cache` (README "Response cache"): drops a workspace's cached answers, of one requested model
 * (`?model=`) or all of them. Management keys only; a key acts on its own workspace. The operator may name another
 * with `?workspace_id=`, as on every management route: the management macro resolves it into `principal` (and answers
 * 404 to any other key naming a workspace not its own: core/auth/workspace-scope.ts).
 */
import { Elysia, t } from "elysia";
import type { Authenticator } from "../auth/authenticate.ts";
import { workspaceGroups } from "../cache/key.ts";
import { dropEntries } from "../cache/store.ts";
import type { Deps } from "../deps.ts";
import { managementOnly } from "./management-only.ts";

const DropQuery = t.Object({
  model: t.Optional(t.String({ minLength: 1, maxLength: 512, description: "Only the entries of requests that asked for this model" })),
});

export function cacheRoutes(deps: Deps, auth: Authenticator) {
  return new Elysia({ name: "routes:cache" })
    .use(managementOnly(auth, deps.store.workspaces))
    .guard({ management: true })
    .delete(
      "/cache",
      async ({ query, principal }) => {
        const workspaceId = principal.workspaceId;
        const [all, ofModel] = workspaceGroups(workspaceId, query.model ?? "");
        const deleted = await dropEntries(deps, query.model === undefined ? all : ofModel);
        return { data: { workspace_id: workspaceId, model: query.model ?? null, deleted } };
      },
      { query: DropQuery, detail: { summary: "Drop cached answers of a workspace (of one model, or all)", tags: ["cache"] } },
    );
}
