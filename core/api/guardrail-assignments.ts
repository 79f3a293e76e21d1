/**
 * Guardrail assignments (the peer SDK's bulk assign / unassign / list): to keys
 * (`/guardrails/{id}/assignments/keys[/remove]`, `{key_hashes: [...]}`) and to the caller's workspace, our stand-in
 * for the peer's members (`/guardrails/{id}/assignments/workspace[/remove]`, body optional). Lists page with
 * `offset` and `limit` (1–100, default 50): one guardrail's, or the workspace's (`/guardrails/assignments/{keys|workspace}`).
 */
import { Elysia, t } from "elysia";
import type { Authenticator } from "../auth/authenticate.ts";
import type { Deps } from "../deps.ts";
import { managementOnly } from "./management-only.ts";
import { errors } from "../errors.ts";
import { guardrailsOf } from "../guardrails/service.ts";
import { IntegerQuery, integerParam } from "../http/query.ts";
import type { AssignmentRecord } from "../store/types.ts";
import { keyAssignmentView, workspaceAssignmentView } from "./guardrail-view.ts";

const KeyHashes = t.Object({ key_hashes: t.Array(t.String({ minLength: 1, maxLength: 128 }), { minItems: 1, maxItems: 1000 }) }, { additionalProperties: false });
const WorkspaceBody = t.Optional(t.Object({ workspace_ids: t.Optional(t.Array(t.String(), { maxItems: 1 })) }, { additionalProperties: false }));
const PageQuery = t.Object({ offset: IntegerQuery("Assignments to skip (0 or more)"), limit: IntegerQuery("Page size, 1 to 100 (default 50)") });

function pageOf(query: { offset?: string; limit?: string }) {
  return {
    offset: integerParam("offset", query.offset, { min: 0, max: Number.MAX_SAFE_INTEGER, fallback: 0 }),
    limit: integerParam("limit", query.limit, { min: 1, max: 100, fallback: 50 }),
  };
}

export function guardrailAssignmentRoutes(deps: Deps, auth: Authenticator) {
  const service = guardrailsOf(deps);
  const ownGuardrail = async (workspaceId: string, id: string) => {
    if (!(await deps.store.guardrails.get(id, workspaceId))) throw errors.notFound("Guardrail not found");
  };

  /** Every hash names a key of the caller's workspace, or 400 naming the first that does not. */
  const ownKeys = async (workspaceId: string, hashes: readonly string[]) => {
    const found = await Promise.all(hashes.map((hash) => deps.store.keys.findByHash(hash)));
    const bad = found.findIndex((key) => !key || key.workspaceId !== workspaceId);
    if (bad >= 0) throw errors.invalid(`key_hashes[${bad}]: no API key with this hash in this workspace`, { param: `key_hashes[${bad}]` });
  };

  const keyViews = async (rows: readonly AssignmentRecord[]) => {
    const keys = await Promise.all(rows.map((a) => deps.store.keys.findByHash(a.target)));
    return rows.map((a, i) => keyAssignmentView(a, keys[i]));
  };

  const workspaceTargets = (workspaceId: string, body: { workspace_ids?: string[] } | null | undefined): string[] => {
    const ids = body?.workspace_ids ?? [workspaceId];
    if (ids.some((id) => id !== workspaceId)) throw errors.invalid("workspace_ids: only the workspace of the calling key", { param: "workspace_ids" });
    return ids;
  };

  return new Elysia({ name: "routes:guardrail-assignments" })
    .use(managementOnly(auth, deps.store.workspaces))
    .guard({ management: true })
    .get(
      "/guardrails/assignments/keys",
      async ({ query, principal }) => {
        const page = await deps.store.guardrails.assignments(principal.workspaceId, "key", pageOf(query));
        return { data: await keyViews(page.data), total_count: page.total };
      },
      { query: PageQuery, detail: { summary: "List every key assignment of the workspace", tags: ["guardrails"] } },
    )
    .get(
      "/guardrails/assignments/workspace",
      async ({ query, principal }) => {
        const page = await deps.store.guardrails.assignments(principal.workspaceId, "workspace", pageOf(query));
        return { data: page.data.map(workspaceAssignmentView), total_count: page.total };
      },
      { query: PageQuery, detail: { summary: "List every workspace assignment", tags: ["guardrails"] } },
    )
    .get(
      "/guardrails/:id/assignments/keys",
      async ({ params, query, principal }) => {
        await ownGuardrail(principal.workspaceId, params.id);
        const page = await deps.store.guardrails.assignments(principal.workspaceId, "key", { ...pageOf(query), guardrailId: params.id });
        return { data: await keyViews(page.data), total_count: page.total };
      },
      { query: PageQuery, detail: { summary: "List a guardrail's key assignments", tags: ["guardrails"] } },
    )
    .get(
      "/guardrails/:id/assignments/workspace",
      async ({ params, query, principal }) => {
        await ownGuardrail(principal.workspaceId, params.id);
        const page = await deps.store.guardrails.assignments(principal.workspaceId, "workspace", { ...pageOf(query), guardrailId: params.id });
        return { data: page.data.map(workspaceAssignmentView), total_count: page.total };
      },
      { query: PageQuery, detail: { summary: "List a guardrail's workspace assignment", tags: ["guardrails"] } },
    )
    .post(
      "/guardrails/:id/assignments/keys",
      async ({ params, body, principal }) => {
        await ownGuardrail(principal.workspaceId, params.id);
        await ownKeys(principal.workspaceId, body.key_hashes);
        const assigned = await deps.store.guardrails.assign(params.id, principal.workspaceId, "key", body.key_hashes, () => deps.ids.id("gka_"));
        await service.invalidate();
        return { assigned_count: assigned };
      },
      { body: KeyHashes, parse: "json", detail: { summary: "Assign a guardrail to keys", tags: ["guardrails"] } },
    )
    .post(
      "/guardrails/:id/assignments/keys/remove",
      async ({ params, body, principal }) => {
        await ownGuardrail(principal.workspaceId, params.id);
        const removed = await deps.store.guardrails.unassign(params.id, "key", body.key_hashes);
        await service.invalidate();
        return { unassigned_count: removed, removed_count: removed };
      },
      { body: KeyHashes, parse: "json", detail: { summary: "Remove a guardrail from keys", tags: ["guardrails"] } },
    )
    .post(
      "/guardrails/:id/assignments/workspace",
      async ({ params, body, principal }) => {
        await ownGuardrail(principal.workspaceId, params.id);
        const targets = workspaceTargets(principal.workspaceId, body);
        const assigned = await deps.store.guardrails.assign(params.id, principal.workspaceId, "workspace", targets, () => deps.ids.id("gwa_"));
        await service.invalidate();
        return { assigned_count: assigned };
      },
      { body: WorkspaceBody, detail: { summary: "Assign a guardrail to every key of the workspace", tags: ["guardrails"] } },
    )
    .post(
      "/guardrails/:id/assignments/workspace/remove",
      async ({ params, body, principal }) => {
        await ownGuardrail(principal.workspaceId, params.id);
        const removed = await deps.store.guardrails.unassign(params.id, "workspace", workspaceTargets(principal.workspaceId, body));
        await service.invalidate();
        return { unassigned_count: removed, removed_count: removed };
      },
      { body: WorkspaceBody, detail: { summary: "Remove a guardrail from the workspace", tags: ["guardrails"] } },
    );
}
