/**
 * `GET /generations` (management keys): the workspace's generation log, newest first, filtered by model, provider,
 * key or outcome, paged with an opaque cursor — the admin page's log. One generation in full (attempts, pipeline
 * entries, warnings) is `GET /generation?id=`.
 */
import { Elysia, t } from "elysia";
import type { Authenticator } from "../auth/authenticate.ts";
import type { Deps } from "../deps.ts";
import { managementOnly } from "./management-only.ts";
import { errors } from "../errors.ts";
import { IntegerQuery, integerParam } from "../http/query.ts";
import type { GenerationQuery } from "../store/types.ts";
import { generationView } from "./generation-view.ts";

const ListQuery = t.Object({
  limit: IntegerQuery("Generations per page, 1 to 200 (default 50)"),
  cursor: t.Optional(t.String({ description: "`next_cursor` of the previous page" })),
  model: t.Optional(t.String({ description: "Only this model (the id the catalog lists)" })),
  provider: t.Optional(t.String({ description: "Only this provider id" })),
  key_hash: t.Optional(t.String({ description: "Only this key's generations" })),
  status: t.Optional(t.Union([t.Literal("success"), t.Literal("error")], { description: "success: status 200; error: any other" })),
});

export function generationLogRoutes(deps: Deps, auth: Authenticator) {
  return new Elysia({ name: "routes:generations" })
    .use(managementOnly(auth, deps.store.workspaces))
    .guard({ management: true })
    .get(
      "/generations",
      async ({ query, principal }) => {
        const limit = integerParam("limit", query.limit, { min: 1, max: 200, fallback: 50 });
        const filter: GenerationQuery = { limit };
        if (query.cursor !== undefined) filter.before = parseCursor(query.cursor);
        if (query.model !== undefined) filter.model = query.model;
        if (query.provider !== undefined) filter.providerId = query.provider;
        if (query.key_hash !== undefined) filter.keyHash = query.key_hash;
        if (query.status !== undefined) filter.outcome = query.status;
        const records = await deps.store.generations.list(principal.workspaceId, filter);
        const last = records.length === limit ? records.at(-1) : undefined;
        return {
          data: records.map((record) => ({ ...generationView(record, { withDetails: false }), key_hash: record.keyHash })),
          next_cursor: last ? `${last.createdAt}_${last.id}` : null,
        };
      },
      { query: ListQuery, detail: { summary: "The generation log, newest first (management keys)", tags: ["generations"] } },
    );
}

function parseCursor(cursor: string): { createdAt: number; id: string } {
  const match = /^(\d{1,16})_(.{1,200})$/.exec(cursor);
  if (!match) throw errors.invalid("cursor: not a cursor of this list", { param: "cursor" });
  return { createdAt: Number(match[1]), id: match[2]! };
}
