/**
 * The management-only guard of the management routes (keys, presets, containers, guardrails, beta admissions, usage,
 * generations), as one Elysia macro: a route group `.use(managementOnly(auth, deps.store.workspaces))` then `.guard({ management: true })`,
 * and every route after that is refused to a request without a key (401) or with an inference key (403), and has the
 * caller as `principal`.
 *
 * The refusal runs in `transform`, before Elysia validates the query and the body, so 401 and 403 precede 400 (the
 * body is not even read without a key, core/app.ts). `resolve`, which runs after validation, only hands the principal
 * to the handler: the authenticator answers once per request (core/http/auth-first.ts), so that is no second look-up.
 */
import { Elysia } from "elysia";
import { requireManagement, type Authenticator } from "../auth/authenticate.ts";
import { actingIn, namedWorkspace } from "../auth/workspace-scope.ts";
import type { WorkspaceRepo } from "../store/types/workspaces.ts";

/**
 * `principal` is the caller acting in the workspace the request names (`workspace_id` in the body or the query), which
 * only the operator's keys may name (core/auth/workspace-scope.ts).
 */
export function managementOnly(auth: Authenticator, workspaces: Pick<WorkspaceRepo, "get">) {
  // Unnamed: Elysia skips a second plugin of the same name, and each gateway (tests start several) has its own `auth`.
  return new Elysia().macro({
    management: {
      async transform({ request, query }) {
        requireManagement(await auth.authenticate(request.headers));
        // Every management route takes `?workspace_id=`; read from the URL by `resolve`, not by each route's schema.
        if (query && "workspace_id" in query) delete (query as Record<string, unknown>).workspace_id;
      },
      resolve: async ({ request, body }) => ({
        principal: await actingIn(await auth.authenticate(request.headers), namedWorkspace(request.url, body), workspaces),
      }),
    },
  });
}
