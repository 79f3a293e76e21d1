/**
 * Guardrail budgets, held exactly like a key's credit limit: the same
 * CreditLedger (one atomic kv reservation per request and budget, the worst case held before the upstream call and
 * put on the request's bill beside the key's hold, each later turn and priced plugin work extending it, the actual
 * cost committed before the hold is released), so concurrent requests on any number of processes never spend past a
 * budget. Each budget is checked on its own.
 *
 * A budget's window is seeded from the store: `guardrail_spend` rows, written with each billed generation that
 * counted against it (the generation record carries the budget ids; see `tagGeneration`), plus what this process
 * committed that the usage ledger has not written yet.
 */
import type { UsageLedger } from "../accounting/ledger.ts";
import { limitsOf } from "../config/routing-limits.ts";
import type { Deps } from "../deps.ts";
import { CreditLedger, type CreditHold } from "../limits/credits.ts";
import type { ApiKeyRecord } from "../store/types.ts";
import type { Budget } from "./policy.ts";

/** The key-like record a budget is held under (kv keys `gw:credits:*:grd:<id>:<window>`). */
function budgetRecord(budget: Budget): ApiKeyRecord & { limit: number } {
  return {
    hash: `grd:${budget.guardrail.id}`,
    workspaceId: "",
    name: budget.guardrail.name,
    label: "",
    isManagement: false,
    disabled: false,
    limit: budget.limitUsd,
    limitReset: budget.reset,
    usage: 0,
    createdAt: 0,
    updatedAt: 0,
    expiresAt: null,
  };
}

const idOf = (hash: string) => hash.slice("grd:".length);

/** Costs this process committed under budgets, until the usage ledger has written their generation. */
class PendingSpend {
  private entries: Array<{ generationId: string; budgets: readonly string[]; cost: number; createdAt: number }> = [];
  constructor(private readonly ledger: Pick<UsageLedger, "pendingGeneration">) {}

  add(generationId: string, budgets: readonly string[], cost: number, createdAt: number): void {
    this.entries.push({ generationId, budgets, cost, createdAt });
    if (this.entries.length > 256) this.prune();
  }

  since(guardrailId: string, since: number): number {
    this.prune();
    let sum = 0;
    for (const e of this.entries) if (e.createdAt >= since && e.budgets.includes(guardrailId)) sum += e.cost;
    return sum;
  }

  private prune(): void {
    this.entries = this.entries.filter((e) => this.ledger.pendingGeneration(e.generationId) !== undefined);
  }
}

export class GuardrailBudgets {
  private readonly credits: CreditLedger;
  private readonly pending: PendingSpend;

  constructor(private readonly deps: Pick<Deps, "kv" | "store" | "ledger" | "clock" | "logger" | "config">) {
    this.pending = new PendingSpend(deps.ledger);
    const repo = deps.store.guardrails;
    const pending = this.pending;
    this.credits = new CreditLedger(
      deps.kv,
      {
        // The lifetime window reads `usage`: everything ever spent under the budget.
        keys: { findByHash: async (hash) => ({ ...budgetRecordOf(hash), usage: await repo.spentSince(idOf(hash), 0) }) },
        generations: { costSince: (hash, since) => repo.spentSince(idOf(hash), since) },
      },
      {
        pendingUsage: (hash) => pending.since(idOf(hash), 0),
        pendingUsageSince: (hash, since) => pending.since(idOf(hash), since),
        readConsistently: (read) => deps.ledger.readConsistently(read),
      },
      deps.clock,
      deps.logger,
      limitsOf(deps.config),
    );
  }

  /** Reserves `amount` under one budget for request `id`; false when the budget cannot cover it. Rejects when the kv is down. */
  async reserve(budget: Budget, amount: number, id: string): Promise<CreditHold | undefined> {
    const result = await this.credits.reserve(budgetRecord(budget), amount, id);
    return result.granted ? result.hold : undefined;
  }

  /** USD spent under a budget in its current window (for tests and operators). */
  spent(budget: Budget): Promise<number> {
    return this.credits.spentInWindow(budgetRecord(budget));
  }

  /**
   * Marks the request's generation record (queued in the usage ledger as the request's bill closes, just before its
   * holds are committed: core/accounting/bill.ts) with the budgets it counted against, so `bill` writes their spend rows with it; and counts the cost as
   * pending until then.
   */
  tagGeneration(generationId: string, budgets: readonly string[], cost: number, createdAt: number): void {
    const record = this.deps.ledger.pendingGeneration(generationId);
    if (!record) return;
    record.guardrailBudgets = budgets;
    if (cost > 0) this.pending.add(generationId, budgets, cost, createdAt);
  }
}

function budgetRecordOf(hash: string): ApiKeyRecord {
  return budgetRecord({ guardrail: { id: idOf(hash), name: "", scope: "api-key" }, limitUsd: 0, reset: null });
}
