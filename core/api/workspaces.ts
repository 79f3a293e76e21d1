/**
 * The workspaces management API (README "Workspaces"; the peer SDK's `workspaces.*`): create, list, get, update and
 * delete workspaces, and their budgets per interval. The operator's management keys see every workspace; a
 * workspace's own management key sees only its own (another reads as missing) and may rename it, nothing more.
 * The member calls answer 400: members are user accounts, and the gateway has none.
 */
import { Elysia, t } from "elysia";
import type { Authenticator } from "../auth/authenticate.ts";
import type { Principal } from "../auth/principal.ts";
import { requireOperator } from "../auth/workspace-scope.ts";
import type { Deps } from "../deps.ts";
import { errors, GatewayError } from "../errors.ts";
import { jsonResponse } from "../http/envelope.ts";
import { IntegerQuery, integerParam } from "../http/query.ts";
import { checkStorableText } from "../store/text.ts";
import { SlugTaken, type BudgetInterval, type Workspace, type WorkspaceSettings } from "../store/types/workspaces.ts";
import { PLUGIN_SWITCHES, pluginDefaults } from "../pipeline/plugins/active.ts";
import { checkModuleOptions } from "../registry/options.ts";
import { workspaceSettingsOf } from "../workspaces/settings-service.ts";
import { checkedSetting, settingView } from "../cache/setting-body.ts";
import { cacheConfigOf } from "../config/cache.ts";
import { managementOnly } from "./management-only.ts";
import { CreateWorkspaceBody, PatchWorkspaceBody, settingsOf } from "./workspace-body.ts";
import { budgetView, workspaceView } from "./workspace-view.ts";

const ListQuery = t.Object({
  offset: IntegerQuery("Workspaces to skip (0 or more)"),
  limit: IntegerQuery("Page size, 1 to 100 (default 50)"),
});
const DeleteQuery = t.Object({
  with_keys: t.Optional(t.Union([t.Literal("true"), t.Literal("false")])),
  confirm_default_workspace_deletion: t.Optional(t.String()),
});
const BudgetBody = t.Object({ limit_usd: t.Number({ minimum: 0 }), include_byok_in_budgets: t.Optional(t.Boolean()) });
const INTERVALS: readonly BudgetInterval[] = ["daily", "weekly", "monthly", "lifetime"];

const conflict = (message: string) => new GatewayError("precondition_failed", message, { status: 409 });
const noMembers = () =>
  errors.invalid("Workspace members are user accounts, and this gateway has none: access is given by API keys (a workspace's management key, README \"Workspaces\")");

export function workspaceRoutes(deps: Deps, auth: Authenticator, defaultWorkspaceId: string) {
  const settings = workspaceSettingsOf(deps);

  /** The workspace `ref` (id or slug) names, if the caller may see it; 404 otherwise. */
  const visible = async (principal: Principal, ref: string): Promise<Workspace> => {
    const workspace = (await deps.store.workspaces.get(ref)) ?? (await bySlug(ref));
    if (!workspace || (!principal.isOperator && workspace.id !== principal.workspaceId)) throw errors.notFound(`Workspace not found: ${ref}`);
    return workspace;
  };
  const bySlug = async (slug: string) => {
    const { workspaces } = await deps.store.workspaces.list({ offset: 0, limit: 1_000 });
    return workspaces.find((w) => w.slug === slug);
  };
  const view = async (w: Workspace) => {
    const page = await deps.store.guardrails.assignments(w.id, "workspace", { offset: 0, limit: 1 });
    return workspaceView(w, page.data[0]?.guardrailId);
  };
  const intervalOf = (raw: string): BudgetInterval => {
    if (!(INTERVALS as readonly string[]).includes(raw)) throw errors.invalid(`interval: one of ${INTERVALS.join(", ")}`, { param: "interval" });
    return raw as BudgetInterval;
  };
  const changed = async (id: string) => settings.invalidate(id);
  /** The settings, with every plugin entry checked as a config entry is at start-up (a 400 naming the field). */
  const checked = (next: WorkspaceSettings): WorkspaceSettings => {
    if (next.cache) next.cache = settingView(checkedSetting(next.cache, "settings.cache", cacheConfigOf(deps.config).maxTtlSeconds));
    for (const [index, entry] of (next.plugins ?? []).entries()) {
      const field = `settings.plugins[${index}]`;
      const plugin = deps.registry.plugin(entry.id);
      if (!plugin) throw errors.invalid(`${field}.id: plugin "${entry.id}" is not available on this gateway`, { param: `${field}.id` });
      for (const key of PLUGIN_SWITCHES) {
        if (entry[key] !== undefined && typeof entry[key] !== "boolean") throw errors.invalid(`${field}.${key}: must be a boolean`, { param: `${field}.${key}` });
      }
      const { id: _id, ...options } = entry;
      try {
        checkModuleOptions(plugin, pluginDefaults(options), field);
      } catch (error) {
        throw errors.invalid(error instanceof Error ? error.message : String(error), { param: field });
      }
    }
    return next;
  };

  return new Elysia({ name: "routes:workspaces" })
    .use(managementOnly(auth, deps.store.workspaces))
    .guard({ management: true })
    .post(
      "/workspaces",
      async ({ body, principal }) => {
        requireOperator(principal);
        checkStorableText(body.name, "name");
        checkStorableText(body.description ?? undefined, "description");
        const created = await deps.store.workspaces.create({ name: body.name, slug: body.slug, description: body.description ?? null, settings: checked(settingsOf(body, {})) });
        if (!created) throw conflict(`Workspace slug already in use: ${body.slug}`);
        const workspace = body.include_byok_in_budgets ? ((await deps.store.workspaces.update(created.id, { includeByokInBudgets: true })) ?? created) : created;
        return jsonResponse({ data: await view(workspace) }, 201);
      },
      { body: CreateWorkspaceBody, parse: "json", detail: { summary: "Create a workspace", tags: ["workspaces"] } },
    )
    .get(
      "/workspaces",
      async ({ query, principal }) => {
        const offset = integerParam("offset", query.offset, { min: 0, max: Number.MAX_SAFE_INTEGER, fallback: 0 });
        const limit = integerParam("limit", query.limit, { min: 1, max: 100, fallback: 50 });
        if (!principal.isOperator) {
          const own = await deps.store.workspaces.get(principal.workspaceId);
          return { data: own && offset === 0 ? [await view(own)] : [], total_count: own ? 1 : 0 };
        }
        const { workspaces, total } = await deps.store.workspaces.list({ offset, limit });
        return { data: await Promise.all(workspaces.map(view)), total_count: total };
      },
      { query: ListQuery, detail: { summary: "List workspaces", tags: ["workspaces"] } },
    )
    .get("/workspaces/:id", async ({ params, principal }) => ({ data: await view(await visible(principal, params.id)) }), {
      detail: { summary: "Get a workspace", tags: ["workspaces"] },
    })
    .patch(
      "/workspaces/:id",
      async ({ params, body, principal }) => {
        const workspace = await visible(principal, params.id);
        const { name, slug, description, ...rest } = body;
        // A workspace's own manager renames it; its settings and budgets are the operator's to set.
        if (!principal.isOperator && Object.values(rest).some((v) => v !== undefined)) requireOperator(principal);
        checkStorableText(name, "name");
        checkStorableText(description ?? undefined, "description");
        let updated;
        try {
          updated = await deps.store.workspaces.update(workspace.id, {
            ...(name !== undefined ? { name } : {}),
            ...(slug !== undefined ? { slug } : {}),
            ...(description !== undefined ? { description } : {}),
            ...(rest.include_byok_in_budgets !== undefined ? { includeByokInBudgets: rest.include_byok_in_budgets } : {}),
            settings: checked(settingsOf(body, workspace.settings)),
          });
        } catch (error) {
          if (error instanceof SlugTaken) throw conflict(`Workspace slug already in use: ${error.slug}`);
          throw error;
        }
        if (!updated) throw errors.notFound(`Workspace not found: ${params.id}`);
        await changed(workspace.id);
        return { data: await view(updated) };
      },
      { body: PatchWorkspaceBody, parse: "json", detail: { summary: "Update a workspace", tags: ["workspaces"] } },
    )
    .delete(
      "/workspaces/:id",
      async ({ params, query, principal }) => {
        requireOperator(principal);
        const workspace = await visible(principal, params.id);
        if (workspace.id === defaultWorkspaceId) throw conflict("The default workspace cannot be deleted: the operator's keys belong to it");
        const live = await deps.store.keys.countLive(workspace.id, deps.clock.now());
        if (live > 0 && query.with_keys !== "true") {
          throw conflict(`Workspace ${workspace.slug} has ${live} live API key(s): delete or disable them first, or send ?with_keys=true to disable them with it`);
        }
        // Keys first: a key of a deleted workspace must never authenticate, on any process.
        for (const hash of await deps.store.keys.disableWorkspace(workspace.id)) await deps.keyCache.invalidate(hash);
        await deps.store.workspaces.delete(workspace.id);
        await changed(workspace.id);
        return { deleted: true };
      },
      { query: DeleteQuery, detail: { summary: "Delete a workspace", tags: ["workspaces"] } },
    )
    .get(
      "/workspaces/:id/budgets",
      async ({ params, principal }) => {
        const workspace = await visible(principal, params.id);
        const budgets = await deps.store.workspaces.budgets(workspace.id);
        const data = await Promise.all(budgets.map(async (b) => budgetView(b, await settings.budgets.spent(b))));
        return { data, include_byok_in_budgets: workspace.includeByokInBudgets };
      },
      { detail: { summary: "List a workspace's budgets", tags: ["workspaces"] } },
    )
    .get(
      "/workspaces/:id/budgets/:interval",
      async ({ params, principal }) => {
        const workspace = await visible(principal, params.id);
        const interval = intervalOf(params.interval);
        const budget = (await deps.store.workspaces.budgets(workspace.id)).find((b) => b.interval === interval);
        if (!budget) throw errors.notFound(`No ${interval} budget for workspace ${workspace.slug}`);
        return { data: budgetView(budget, await settings.budgets.spent(budget)), include_byok_in_budgets: workspace.includeByokInBudgets };
      },
      { detail: { summary: "Get a workspace budget", tags: ["workspaces"] } },
    )
    .put(
      "/workspaces/:id/budgets/:interval",
      async ({ params, body, principal }) => {
        requireOperator(principal);
        const workspace = await visible(principal, params.id);
        const interval = intervalOf(params.interval);
        const budget = await deps.store.workspaces.setBudget(workspace.id, interval, body.limit_usd);
        const after =
          body.include_byok_in_budgets === undefined ? workspace : ((await deps.store.workspaces.update(workspace.id, { includeByokInBudgets: body.include_byok_in_budgets })) ?? workspace);
        await changed(workspace.id);
        return { data: budgetView(budget, await settings.budgets.spent(budget)), include_byok_in_budgets: after.includeByokInBudgets };
      },
      { body: BudgetBody, parse: "json", detail: { summary: "Set a workspace budget", tags: ["workspaces"] } },
    )
    .delete(
      "/workspaces/:id/budgets/:interval",
      async ({ params, principal }) => {
        requireOperator(principal);
        const workspace = await visible(principal, params.id);
        if (!(await deps.store.workspaces.deleteBudget(workspace.id, intervalOf(params.interval)))) {
          throw errors.notFound(`No ${params.interval} budget for workspace ${workspace.slug}`);
        }
        await changed(workspace.id);
        return { deleted: true };
      },
      { detail: { summary: "Delete a workspace budget", tags: ["workspaces"] } },
    )
    .get("/workspaces/:id/members", () => Promise.reject(noMembers()), { detail: { summary: "Not available: no user accounts", tags: ["workspaces"] } })
    .post("/workspaces/:id/members/add", () => Promise.reject(noMembers()), { detail: { summary: "Not available: no user accounts", tags: ["workspaces"] } })
    .post("/workspaces/:id/members/remove", () => Promise.reject(noMembers()), { detail: { summary: "Not available: no user accounts", tags: ["workspaces"] } });
}
