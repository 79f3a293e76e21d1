/** Routes any key may call about itself: `GET /key` and `GET /generation?id=`. */
import { Elysia, t } from "elysia";
import type { Authenticator } from "../auth/authenticate.ts";
import type { Deps } from "../deps.ts";
import { errors } from "../errors.ts";
import { isStorableText } from "../store/text.ts";
import { actingIn } from "../auth/workspace-scope.ts";
import { currentKeyView } from "./current-key.ts";
import { generationView } from "./generation-view.ts";

export function accountRoutes(deps: Deps, auth: Authenticator) {
  return new Elysia({ name: "routes:account" })
    .derive({ as: "local" }, async ({ request }) => ({ principal: await auth.authenticate(request.headers) }))
    .get("/key", async ({ principal }) => ({ data: await currentKeyView(deps, principal) }), {
      detail: { summary: "The calling key, its usage and limit", tags: ["keys"] },
    })
    .get(
      "/generation",
      async ({ query, principal: caller }) => {
        // The operator reads another workspace's generation by naming it (README "Workspaces").
        const principal = await actingIn(caller, query.workspace_id, deps.store.workspaces);
        // Ids in the path are covered at the edge (core/app.ts); this one is a query value.
        if (!isStorableText(query.id)) throw errors.notFound("Generation not found");
        const pending = deps.ledger.pendingGeneration(query.id);
        const record = pending?.workspaceId === principal.workspaceId ? pending : await deps.store.generations.get(query.id, principal.workspaceId);
        if (!record) throw errors.notFound("Generation not found");
        return { data: generationView(record) };
      },
      { query: t.Object({ id: t.String({ minLength: 1 }), workspace_id: t.Optional(t.String()) }), detail: { summary: "One generation's usage and cost", tags: ["generations"] } },
    );
}
