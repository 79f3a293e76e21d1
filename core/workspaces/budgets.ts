/**
 * Workspace budgets (README "Workspaces"), held exactly like a key's credit limit: the same CreditLedger (one atomic
 * kv reservation per request and budget, the worst case held before the upstream call and put on the request's bill
 * beside the key's hold, later turns and priced plugin work extending it, the actual cost committed before the hold
 * is released), so concurrent requests on any number of processes never spend past a workspace's budget.
 *
 * A budget's window is seeded from the store: what the workspace's generations cost since the window started, plus
 * what this process has not written yet.
 */
import { limitsOf } from "../config/routing-limits.ts";
import type { Deps } from "../deps.ts";
import { CreditLedger, type CreditHold } from "../limits/credits.ts";
import type { ApiKeyRecord } from "../store/types.ts";
import type { WorkspaceBudget } from "../store/types/workspaces.ts";

/** The key-like record a budget is held under (kv keys `gw:credits:*:wsb:<workspace>:<interval>:<window>`). */
function budgetRecord(budget: Pick<WorkspaceBudget, "workspaceId" | "interval" | "limitUsd">): ApiKeyRecord & { limit: number } {
  return {
    hash: `wsb:${budget.workspaceId}:${budget.interval}`,
    workspaceId: budget.workspaceId,
    name: `workspace ${budget.interval} budget`,
    label: "",
    isManagement: false,
    disabled: false,
    limit: budget.limitUsd,
    limitReset: budget.interval === "lifetime" ? null : budget.interval,
    usage: 0,
    createdAt: 0,
    updatedAt: 0,
    expiresAt: null,
  };
}

/** The workspace of a budget record's hash. */
const workspaceOf = (hash: string) => hash.split(":")[1] ?? "";

export class WorkspaceBudgets {
  private readonly credits: CreditLedger;

  constructor(deps: Pick<Deps, "kv" | "store" | "ledger" | "clock" | "logger" | "config">) {
    const repo = deps.store.workspaces;
    this.credits = new CreditLedger(
      deps.kv,
      {
        // The lifetime window reads `usage`: everything the workspace ever spent.
        keys: { findByHash: async (hash) => ({ ...budgetRecord({ workspaceId: workspaceOf(hash), interval: "lifetime", limitUsd: 0 }), usage: await repo.costSince(workspaceOf(hash), 0) }) },
        generations: { costSince: (hash, since) => repo.costSince(workspaceOf(hash), since) },
      },
      {
        pendingUsage: (hash) => deps.ledger.pendingWorkspaceSince(workspaceOf(hash), 0),
        pendingUsageSince: (hash, since) => deps.ledger.pendingWorkspaceSince(workspaceOf(hash), since),
        readConsistently: (read) => deps.ledger.readConsistently(read),
      },
      deps.clock,
      deps.logger,
      limitsOf(deps.config),
    );
  }

  /** Reserves `amount` under one budget for request `id`: the hold, or what is left when it cannot cover it. Rejects when the kv is down. */
  async reserve(budget: WorkspaceBudget, amount: number, id: string): Promise<{ hold: CreditHold } | { remaining: number }> {
    const result = await this.credits.reserve(budgetRecord(budget), amount, id);
    return result.granted ? { hold: result.hold } : { remaining: result.remaining };
  }

  /** USD spent under a budget in its current window. */
  spent(budget: WorkspaceBudget): Promise<number> {
    return this.credits.spentInWindow(budgetRecord(budget));
  }
}
