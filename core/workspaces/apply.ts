/**
 * What a workspace's settings do to each of its requests (README "Workspaces"), run by the limits stage beside the
 * key's own limits: the allowed models and providers narrow the request as a guardrail's lists do, disabled server
 * tools are refused, the workspace's rate limit is taken (one GCRA for all its keys, failing open like a key's), and
 * each budget holds the request's worst case (402 when one cannot cover it, failing closed like a key's limit). A
 * workspace with nothing set costs a cached map look-up.
 */
import { toRateLimitSetting } from "../config/routing-limits.ts";
import { GatewayError } from "../errors.ts";
import { applyModelLists } from "../guardrails/model-lists.ts";
import type { GuardrailRef, Policy } from "../guardrails/policy.ts";
import type { CreditHold } from "../limits/credits.ts";
import { creditsUnavailable, limitsErrorLog } from "../limits/failures.ts";
import { promptSize, promptTokenEstimate } from "../limits/estimate.ts";
import { checkRateLimits } from "../limits/rate-limit.ts";
import { billTerms, turnSize } from "../limits/turn-size.ts";
import { roundUsd } from "../accounting/money.ts";
import { countingByok } from "../byok/holds.ts";
import type { RequestContext } from "../pipeline/context.ts";
import { workspaceSettingsOf, type WorkspaceState } from "./settings-service.ts";

/** The workspace's state for this request: synchronous when cached, which is every request but one a second. */
export function workspaceStateOf(ctx: RequestContext): WorkspaceState | Promise<WorkspaceState> {
  const service = workspaceSettingsOf(ctx.deps);
  const workspaceId = ctx.principal!.workspaceId;
  return service.peek(workspaceId) ?? service.stateOf(workspaceId);
}

/** Applies an active workspace's settings to the request; the budgets' holds go on the request's bill. */
export async function applyWorkspace(ctx: RequestContext, state: WorkspaceState): Promise<void> {
  const workspaceId = ctx.principal!.workspaceId;
  const settings = state.settings;
  const ref: GuardrailRef = { id: workspaceId, name: "workspace settings", scope: "workspace" };
  if (settings.allowed_models || settings.allowed_providers) {
    applyModelLists(listsPolicy(ref, settings.allowed_models ?? null, settings.allowed_providers ?? null), ctx.request, ctx.deps.catalog);
  }
  if (settings.disabled_server_tools?.length) refuseDisabledTools(ctx, settings.disabled_server_tools);
  const rateLimit = settings.rate_limit ? toRateLimitSetting(settings.rate_limit) : null;
  if (rateLimit) {
    const tokens = promptTokenEstimate(promptSize(ctx.request)) + (ctx.request.maxTokens ?? 0);
    let denial;
    try {
      denial = await checkRateLimits(ctx.deps.kv, `ws:${workspaceId}`, rateLimit, tokens, ctx.deps.clock.now());
    } catch (err) {
      limitsErrorLog(ctx.deps.logger)(err, "workspaces: rate limit not enforced: the kv is unreachable (failing open)");
    }
    if (denial) {
      ctx.replyHeaders = { ...ctx.replyHeaders, ...denial.headers };
      throw new GatewayError("rate_limit_exceeded", `Rate limit of this key's workspace exceeded: ${denial.error.message}`, {
        status: 429,
        retryable: true,
        ...(denial.error.retryAfter !== undefined ? { retryAfter: denial.error.retryAfter } : {}),
      });
    }
  }
  if (state.budgets.length > 0) await holdBudgets(ctx, state);
}

function listsPolicy(guardrail: GuardrailRef, models: readonly string[] | null, providers: readonly string[] | null): Policy {
  return {
    guardrails: [guardrail],
    allowedModels: models ? [{ guardrail, patterns: models }] : [],
    ignoredModels: [],
    allowedProviders: providers ? [{ guardrail, providers }] : [],
    ignoredProviders: [],
    zdrFamilies: new Set(),
    filters: [],
    budgets: [],
    checksOutput: false,
  };
}

function refuseDisabledTools(ctx: RequestContext, disabled: readonly string[]): void {
  for (const [index, tool] of ctx.request.tools.entries()) {
    if (tool.kind !== "server") continue;
    const name = tool.type.replace(/^(service|openrouter):/, "");
    if (disabled.some((d) => d.replace(/^(service|openrouter):/, "") === name)) {
      throw new GatewayError("permission_denied", `tools[${index}]: server tool ${tool.spelling ?? tool.type} is disabled for this workspace`, { metadata: { param: `tools[${index}]` } });
    }
  }
}

const PERIOD = { daily: "day", weekly: "week", monthly: "month", lifetime: "lifetime" } as const;

/** Each budget holds the request's worst case, on its own; a 402 names the first that cannot, and what it has left. */
async function holdBudgets(ctx: RequestContext, state: WorkspaceState): Promise<void> {
  const size = turnSize(ctx.deps, ctx.request);
  if (!size) return;
  const service = workspaceSettingsOf(ctx.deps);
  const holds: CreditHold[] = [];
  const releaseAll = () => {
    for (const h of holds) void h.release().catch(() => undefined);
  };
  for (const budget of state.budgets) {
    let result;
    try {
      result = await service.budgets.reserve(budget, size.amount, ctx.generationId);
    } catch (err) {
      releaseAll();
      limitsErrorLog(ctx.deps.logger)(err, "workspaces: budget reservation failed: the kv is unreachable (failing closed)");
      throw creditsUnavailable();
    }
    if ("remaining" in result) {
      releaseAll();
      const per = budget.interval === "lifetime" ? "" : ` per ${PERIOD[budget.interval]}`;
      throw new GatewayError("payment_required", `This workspace's budget of $${budget.limitUsd}${per} cannot cover this request ($${roundUsd(result.remaining)} left)`, {
        metadata: { workspace_id: budget.workspaceId, budget_interval: budget.interval, limit_usd: budget.limitUsd, limit_remaining: roundUsd(result.remaining) },
      });
    }
    holds.push(countingByok(result.hold, state.includeByokInBudgets, ctx.bill));
  }
  ctx.bill.open(billTerms(ctx.deps, ctx.principal!.record!, ctx.request), holds);
}
