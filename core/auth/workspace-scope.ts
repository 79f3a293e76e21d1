/**
 * Which workspace a management call acts in (README "Workspaces"). A workspace's own management key acts only in
 * its workspace: naming another one reads as naming something that does not exist (404, as another workspace's key
 * or preset does). The operator's management key acts in its own (the default workspace) unless it names another by
 * `workspace_id` — in the body, or `?workspace_id=` — and then every route sees that workspace as the caller's.
 */
import { errors } from "../errors.ts";
import type { WorkspaceRepo } from "../store/types/workspaces.ts";
import type { Principal } from "./principal.ts";

/** The `workspace_id` a management request names: the body's (where its route takes one), else the query's. */
export function namedWorkspace(url: string, body: unknown): string | undefined {
  if (body !== null && typeof body === "object" && typeof (body as { workspace_id?: unknown }).workspace_id === "string") {
    return (body as { workspace_id: string }).workspace_id;
  }
  const at = url.indexOf("workspace_id=");
  if (at === -1) return undefined;
  return new URL(url).searchParams.get("workspace_id") ?? undefined;
}

/** The principal acting in `workspaceId`, or a 404 when the caller may not (or it does not exist). */
export async function actingIn(principal: Principal, workspaceId: string | undefined, workspaces: Pick<WorkspaceRepo, "get">): Promise<Principal> {
  if (workspaceId === undefined || workspaceId === principal.workspaceId) return principal;
  if (!principal.isOperator || !(await workspaces.get(workspaceId))) throw errors.notFound(`Workspace not found: ${workspaceId}`);
  return { ...principal, workspaceId };
}

/** 403 unless the caller holds the operator's management key. */
export function requireOperator(principal: Principal): void {
  if (!principal.isOperator) throw errors.forbidden("Only the operator's management keys can perform this operation");
}
