/**
 * The guardrails management API (the peer SDK's `guardrails.*`): `POST /guardrails`,
 * `GET /guardrails`, `GET|PATCH|DELETE /guardrails/{id}`, plus the assignment routes (guardrail-assignments.ts).
 * Management keys only, scoped to the caller's workspace (another workspace's guardrail reads as missing). Every
 * write is seen by the next request on every process (guardrailsOf(deps).invalidate()).
 */
import { Elysia, t } from "elysia";
import type { Authenticator } from "../auth/authenticate.ts";
import type { Deps } from "../deps.ts";
import { managementOnly } from "./management-only.ts";
import { errors } from "../errors.ts";
import { guardrailCaps } from "../guardrails/pattern/caps.ts";
import { guardrailsOf } from "../guardrails/service.ts";
import { jsonResponse } from "../http/envelope.ts";
import { IntegerQuery, integerParam } from "../http/query.ts";
import type { GuardrailRecord } from "../store/types.ts";
import { newGuardrail } from "../store/types/guardrails.ts";
import { CreateGuardrailBody, guardrailFields, PatchGuardrailBody } from "./guardrail-body.ts";
import { guardrailView } from "./guardrail-view.ts";

const ListQuery = t.Object({
  offset: IntegerQuery("Guardrails to skip (0 or more)"),
  limit: IntegerQuery("Page size, 1 to 100 (default 50)"),
  workspace_id: t.Optional(t.String()),
});

export function guardrailRoutes(deps: Deps, auth: Authenticator) {
  const service = guardrailsOf(deps);
  const maxInstructions = guardrailCaps(deps.config).patternMaxInstructions;

  /** A guardrail of the caller's workspace, or 404. */
  const own = async (workspaceId: string, id: string): Promise<GuardrailRecord> => {
    const record = await deps.store.guardrails.get(id, workspaceId);
    if (!record) throw errors.notFound("Guardrail not found");
    return record;
  };

  /** What the budget has spent in its current window (only for a guardrail with a budget). */
  const usageOf = async (g: GuardrailRecord): Promise<number | undefined> => {
    if (g.limitUsd === null) return undefined;
    return service.budgets.spent({ guardrail: { id: g.id, name: g.name, scope: "api-key" }, limitUsd: g.limitUsd, reset: g.resetInterval });
  };

  return new Elysia({ name: "routes:guardrails" })
    .use(managementOnly(auth, deps.store.workspaces))
    .guard({ management: true })
    .post(
      "/guardrails",
      async ({ body, principal }) => {
        if (body.workspace_id !== undefined && body.workspace_id !== principal.workspaceId) {
          throw errors.invalid("workspace_id: must be the workspace of the calling key", { param: "workspace_id" });
        }
        const record = await deps.store.guardrails.create(newGuardrail(deps.ids.id("grd_"), principal.workspaceId, body.name, guardrailFields(body, {}, maxInstructions)));
        // Nothing applies it yet (a new guardrail enforces nothing until assigned), so no cache to drop.
        return jsonResponse({ data: guardrailView(record, await usageOf(record)) }, 201);
      },
      { body: CreateGuardrailBody, parse: "json", detail: { summary: "Create a guardrail", tags: ["guardrails"] } },
    )
    .get(
      "/guardrails",
      async ({ query, principal }) => {
        if (query.workspace_id !== undefined && query.workspace_id !== principal.workspaceId) return { data: [], total_count: 0 };
        const page = await deps.store.guardrails.list(principal.workspaceId, {
          offset: integerParam("offset", query.offset, { min: 0, max: Number.MAX_SAFE_INTEGER, fallback: 0 }),
          limit: integerParam("limit", query.limit, { min: 1, max: 100, fallback: 50 }),
        });
        return { data: page.data.map((g) => guardrailView(g)), total_count: page.total };
      },
      { query: ListQuery, detail: { summary: "List guardrails", tags: ["guardrails"] } },
    )
    .get(
      "/guardrails/:id",
      async ({ params, principal }) => {
        const record = await own(principal.workspaceId, params.id);
        return { data: guardrailView(record, await usageOf(record)) };
      },
      { detail: { summary: "Get a guardrail", tags: ["guardrails"] } },
    )
    .patch(
      "/guardrails/:id",
      async ({ params, body, principal }) => {
        const current = await own(principal.workspaceId, params.id);
        const updated = await deps.store.guardrails.update(params.id, principal.workspaceId, guardrailFields(body, current.options, maxInstructions));
        if (!updated) throw errors.notFound("Guardrail not found");
        await service.invalidate();
        return { data: guardrailView(updated, await usageOf(updated)) };
      },
      { body: PatchGuardrailBody, parse: "json", detail: { summary: "Update a guardrail (collections are replaced)", tags: ["guardrails"] } },
    )
    .delete(
      "/guardrails/:id",
      async ({ params, principal }) => {
        if (!(await deps.store.guardrails.delete(params.id, principal.workspaceId))) throw errors.notFound("Guardrail not found");
        await service.invalidate();
        return { deleted: true };
      },
      { detail: { summary: "Delete a guardrail and its assignments", tags: ["guardrails"] } },
    );
}
