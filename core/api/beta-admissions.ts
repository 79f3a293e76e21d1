/**
 * Admissions to beta features:
 * `POST /beta/{feature}/admissions` `{key_hashes?: [...], workspace?: true}`, `POST …/admissions/remove` (same body),
 * `GET /beta/{feature}/admissions`. Management keys only; the config can admit too (`plugins.<id>.admit`).
 */
import { Elysia, t } from "elysia";
import type { Authenticator } from "../auth/authenticate.ts";
import type { Deps } from "../deps.ts";
import { managementOnly } from "./management-only.ts";
import { errors } from "../errors.ts";
import { BETA_PLUGINS } from "../guardrails/admission.ts";
import { guardrailsOf } from "../guardrails/service.ts";

const Body = t.Object(
  { key_hashes: t.Optional(t.Array(t.String({ minLength: 1, maxLength: 128 }), { maxItems: 1000 })), workspace: t.Optional(t.Boolean()) },
  { additionalProperties: false },
);

export function betaAdmissionRoutes(deps: Deps, auth: Authenticator) {
  const service = guardrailsOf(deps);
  const feature = (name: string) => {
    if (!BETA_PLUGINS.includes(name)) throw errors.notFound(`No beta feature "${name}"`);
    return name;
  };
  const targets = async (workspaceId: string, body: typeof Body.static) => {
    const keys = body.key_hashes ?? [];
    const found = await Promise.all(keys.map((hash) => deps.store.keys.findByHash(hash)));
    const bad = found.findIndex((key) => !key || key.workspaceId !== workspaceId);
    if (bad >= 0) throw errors.invalid(`key_hashes[${bad}]: no API key with this hash in this workspace`, { param: `key_hashes[${bad}]` });
    if (keys.length === 0 && body.workspace !== true) throw errors.invalid("key_hashes: give key hashes, or workspace: true");
    return { keys, workspace: body.workspace === true };
  };

  return new Elysia({ name: "routes:beta-admissions" })
    .use(managementOnly(auth, deps.store.workspaces))
    .guard({ management: true })
    .get(
      "/beta/:feature/admissions",
      async ({ params, principal }) => {
        const rows = await deps.store.admissions.list(feature(params.feature), principal.workspaceId);
        return {
          data: rows.map((r) => ({ scope: r.scope, ...(r.scope === "key" ? { key_hash: r.target } : { workspace_id: r.target }), created_at: new Date(r.createdAt).toISOString() })),
        };
      },
      { detail: { summary: "List who is admitted to a beta feature", tags: ["beta"] } },
    )
    .post(
      "/beta/:feature/admissions",
      async ({ params, body, principal }) => {
        const name = feature(params.feature);
        const { keys, workspace } = await targets(principal.workspaceId, body);
        let admitted = await deps.store.admissions.admit(name, principal.workspaceId, "key", keys);
        if (workspace) admitted += await deps.store.admissions.admit(name, principal.workspaceId, "workspace", [principal.workspaceId]);
        await service.invalidate();
        return { admitted_count: admitted };
      },
      { body: Body, parse: "json", detail: { summary: "Admit keys or the workspace to a beta feature", tags: ["beta"] } },
    )
    .post(
      "/beta/:feature/admissions/remove",
      async ({ params, body, principal }) => {
        const name = feature(params.feature);
        const { keys, workspace } = await targets(principal.workspaceId, body);
        let removed = await deps.store.admissions.revoke(name, principal.workspaceId, "key", keys);
        if (workspace) removed += await deps.store.admissions.revoke(name, principal.workspaceId, "workspace", [principal.workspaceId]);
        await service.invalidate();
        return { removed_count: removed };
      },
      { body: Body, parse: "json", detail: { summary: "Withdraw admissions to a beta feature", tags: ["beta"] } },
    );
}
