/**
 * guardrails: the policies assigned to the calling key and its workspace (README "Guardrails"), enforced
 * around everything that reaches an upstream. On the way in: beta admission, the model and provider lists, the input
 * content filters (block: 403 with pipeline entries; redact: placeholders in the canonical request; flag: recorded),
 * each side's pattern scans within the request's scan budget (403 past it: README "Caps on heavy work"),
 * then each budget's credit hold (403 when one cannot cover the request), put on the request's bill beside the key's
 * own so every later turn and priced plugin work extends them all. On the way out, when a filter reads the answer: the whole
 * response is checked, or the stream as it flows (core/guardrails/output-stream.ts).
 */
import { GatewayError, toGatewayError } from "../../errors.ts";
import { checkBetaAdmission } from "../../guardrails/admission.ts";
import { amendRecord } from "../../guardrails/amend-record.ts";
import { guardRequest } from "../../guardrails/input.ts";
import { applyModelLists } from "../../guardrails/model-lists.ts";
import { guardResponse } from "../../guardrails/output-response.ts";
import { guardStream } from "../../guardrails/output-stream.ts";
import { guardrailCaps } from "../../guardrails/pattern/caps.ts";
import { withScanBudget } from "../../guardrails/pattern/scan-budget.ts";
import type { Filter, Policy } from "../../guardrails/policy.ts";
import { filtersFor } from "../../guardrails/scan.ts";
import { guardrailsOf } from "../../guardrails/service.ts";
import type { CreditHold } from "../../limits/credits.ts";
import { billTerms, turnSize } from "../../limits/turn-size.ts";
import type { RequestContext } from "../context.ts";
import { mapStream, type Outcome } from "../outcome.ts";
import type { Stage } from "../stage.ts";

export const guardrailsStage: Stage = {
  name: "guardrails",
  async run(ctx, next) {
    const principal = ctx.principal;
    if (!principal?.record) return next();
    await checkBetaAdmission(ctx);
    const policy = await guardrailsOf(ctx.deps).policyFor(principal.workspaceId, principal.keyHash);
    if (!policy) return next();
    applyModelLists(policy, ctx.request, ctx.deps.catalog);
    const scanBudget = guardrailCaps(ctx.deps.config).scanBudgetSteps;
    await guardRequest(ctx.request, withScanBudget(filtersFor(policy.filters, "input"), scanBudget, "input"), ctx.pipeline);
    await holdBudgets(ctx, policy);
    // The budgets' holds are the bill's now: accounting commits them, the limits stage lets go of what it did not.
    const outcome = await next();
    return policy.checksOutput ? await guardOutcome(ctx, withScanBudget(filtersFor(policy.filters, "output"), scanBudget, "output"), outcome) : outcome;
  },
};

/** Checks the answer on the way out (after accounting: a blocked answer is still billed). */
async function guardOutcome(ctx: RequestContext, filters: readonly Filter[], outcome: Outcome): Promise<Outcome> {
  if (outcome.kind === "stream") {
    // A blocked stream was settled (its record written) when its source closed: the record then says 403.
    const blocked = (error: GatewayError) => amendRecord(ctx, { status: error.status, type: error.type });
    return mapStream(outcome, (events) => guardStream(events, filters, { pipeline: ctx.pipeline, blocked }));
  }
  const before = ctx.pipeline.length;
  try {
    await guardResponse(outcome.response, filters, ctx.pipeline);
  } catch (error) {
    const blocked = toGatewayError(error);
    amendRecord(ctx, { status: blocked.status, type: blocked.type });
    throw error;
  }
  if (ctx.pipeline.length > before) amendRecord(ctx);
  return outcome;
}

const PERIOD = { daily: "day", weekly: "week", monthly: "month" } as const;

/**
 * Reserves the request's worst case under every budget (each on its own) and puts the holds on the request's bill,
 * beside the key's. A budget that cannot cover it is a 403; a kv that cannot be reached fails closed (503), as key
 * limits do.
 */
async function holdBudgets(ctx: RequestContext, policy: Policy): Promise<void> {
  if (policy.budgets.length === 0) return;
  const size = turnSize(ctx.deps, ctx.request);
  if (!size) return;
  const service = guardrailsOf(ctx.deps);
  const holds: CreditHold[] = [];
  for (const budget of policy.budgets) {
    let hold: CreditHold | undefined;
    try {
      hold = await service.budgets.reserve(budget, size.amount, ctx.generationId);
    } catch (err) {
      for (const h of holds) void h.release().catch(() => undefined);
      ctx.deps.logger.error({ err }, "guardrails: budget reservation failed: the kv is unreachable (failing closed)");
      throw new GatewayError("provider_unavailable", "Service temporarily unavailable: guardrail budgets cannot be checked right now", { status: 503, retryable: true, retryAfter: 1 });
    }
    if (!hold) {
      for (const h of holds) void h.release().catch(() => undefined);
      const { guardrail, limitUsd, reset } = budget;
      throw new GatewayError("permission_denied", `Request blocked by guardrail "${guardrail.name}": its budget of $${limitUsd}${reset ? ` per ${PERIOD[reset]}` : ""} cannot cover this request`, {
        metadata: { guardrail_id: guardrail.id, guardrail_name: guardrail.name, limit_usd: limitUsd, reset_interval: reset },
      });
    }
    holds.push(hold);
  }
  const ids = policy.budgets.map((b) => b.guardrail.id);
  const terms = billTerms(ctx.deps, ctx.principal!.record!, ctx.request);
  ctx.bill.open(terms, holds, (cost) => service.budgets.tagGeneration(ctx.generationId, ids, cost, ctx.startedAt));
}
