/**
 * `GET /usage` (management keys): the workspace's usage and cost summed per day, week or month and per key, model
 * or provider — what the admin page plots. Keys are named by their name and label, never by their hash alone.
 */
import { Elysia, t } from "elysia";
import type { Authenticator } from "../auth/authenticate.ts";
import type { Deps } from "../deps.ts";
import { managementOnly } from "./management-only.ts";
import { errors } from "../errors.ts";
import { rollUp, isoDay } from "./usage-periods.ts";

const DAY_MS = 86_400_000;
/** The widest range one call may sum: a bit over a year of days. */
const MAX_DAYS = 400;

const UsageQuery = t.Object({
  group_by: t.Optional(t.Union([t.Literal("key"), t.Literal("model"), t.Literal("provider")], { description: "What each series is: a key, a model or a provider (default model)" })),
  period: t.Optional(t.Union([t.Literal("day"), t.Literal("week"), t.Literal("month")], { description: "Bucket size, UTC; weeks start on Monday (default day)" })),
  from: t.Optional(t.String({ format: "date", description: "First day, YYYY-MM-DD (default: 29 days before `to`)" })),
  to: t.Optional(t.String({ format: "date", description: "Last day, YYYY-MM-DD, included (default: today)" })),
});

export function usageRoutes(deps: Deps, auth: Authenticator) {
  return new Elysia({ name: "routes:usage" })
    .use(managementOnly(auth, deps.store.workspaces))
    .guard({ management: true })
    .get(
      "/usage",
      async ({ query, principal }) => {
        const groupBy = query.group_by ?? "model";
        const period = query.period ?? "day";
        const today = Math.floor(deps.clock.now() / DAY_MS);
        const to = query.to === undefined ? today : dayOf(query.to, "to");
        const from = query.from === undefined ? to - 29 : dayOf(query.from, "from");
        if (from > to) throw errors.invalid("from: must not be after to", { param: "from" });
        if (to - from >= MAX_DAYS) throw errors.invalid(`to: at most ${MAX_DAYS} days per call`, { param: "to" });
        const days = await deps.store.generations.usageByDay(principal.workspaceId, { from: from * DAY_MS, to: (to + 1) * DAY_MS, groupBy });
        const names = groupBy === "key" ? await keyNames(deps, principal.workspaceId) : undefined;
        return { data: rollUp(days, period, names), group_by: groupBy, period, from: isoDay(from), to: isoDay(to) };
      },
      {
        query: UsageQuery,
        detail: {
          summary: "Usage and cost per day, week or month, by key, model or provider (management keys)",
          description: "Each entry: `{period (first day, YYYY-MM-DD), group, requests, input_tokens, output_tokens, cost}`, oldest first.",
          tags: ["usage"],
        },
      },
    );
}

function dayOf(value: string, param: string): number {
  const at = /^\d{4}-\d{2}-\d{2}$/.test(value) ? Date.parse(`${value}T00:00:00Z`) : Number.NaN;
  if (Number.isNaN(at)) throw errors.invalid(`${param}: not a date (YYYY-MM-DD)`, { param });
  return Math.floor(at / DAY_MS);
}

/** `name (label)` of the workspace's keys, by hash; deleted keys keep their hash's first characters. */
async function keyNames(deps: Deps, workspaceId: string): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  for (let offset = 0; offset < 10_000; offset += 100) {
    const page = await deps.store.keys.list(workspaceId, { offset, limit: 100, includeDisabled: true });
    for (const key of page) names.set(key.hash, `${key.name} (${key.label})`);
    if (page.length < 100) break;
  }
  return names;
}
