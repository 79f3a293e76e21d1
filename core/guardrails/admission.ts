/**
 * Beta features open only to admitted keys and workspaces: admitted through the
 * management API (`/beta/{feature}/admissions`) or the config (`plugins.<id>.admit`: `true` for everyone, or
 * `{"workspaces": [...], "keys": [<key hash>...]}`). A request that uses one without admission is a 403. Checked
 * here, by the gateway, because a plugin never sees who is calling.
 */
import { GatewayError } from "../errors.ts";
import type { RequestContext } from "../pipeline/context.ts";
import { guardrailsOf } from "./service.ts";

/** Plugin ids that are beta features. */
export const BETA_PLUGINS: readonly string[] = ["alignment"];

function uses(ctx: RequestContext, id: string): boolean {
  const entry = ctx.request.plugins.find((p) => p.id === id);
  if (entry) return entry.enabled !== false;
  return ctx.deps.config.plugins[id]?.enabled === true;
}

function admittedByConfig(admit: unknown, workspaceId: string, keyHash: string): boolean {
  if (admit === true) return true;
  if (typeof admit !== "object" || admit === null) return false;
  const { workspaces, keys } = admit as { workspaces?: unknown; keys?: unknown };
  return (Array.isArray(workspaces) && workspaces.includes(workspaceId)) || (Array.isArray(keys) && keys.includes(keyHash));
}

export async function checkBetaAdmission(ctx: RequestContext): Promise<void> {
  const principal = ctx.principal;
  if (!principal) return;
  for (const id of BETA_PLUGINS) {
    if (!uses(ctx, id)) continue;
    if (admittedByConfig(ctx.deps.config.plugins[id]?.admit, principal.workspaceId, principal.keyHash)) continue;
    if (await guardrailsOf(ctx.deps).admitted(id, principal.workspaceId, principal.keyHash)) continue;
    throw new GatewayError("permission_denied", `The ${id} plugin is a beta feature this key is not admitted to`, { metadata: { plugin: id } });
  }
}
