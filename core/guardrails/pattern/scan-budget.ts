/**
 * The scan budget of one request (README "Caps on heavy work"): every step an operator's pattern takes over the
 * request's text, all patterns of all its guardrails together, counts against one budget per side (the prompt, the
 * answer). Past it the scan stops and the request is refused as a guardrail refuses it, with a 403 that names the
 * budget and the guardrail whose pattern was running: a text the policy cannot check in its budget is not let through.
 */
import { GatewayError } from "../../errors.ts";
import { StepBudget } from "../../regex/index.ts";
import { isCustomDetector } from "../detectors/custom.ts";
import type { Detector } from "../detectors/types.ts";
import type { Filter } from "../policy.ts";
import type { Side } from "../scan.ts";

/** `filters` with their operator patterns counting against a new budget of `limit` steps (the built-ins do not). */
export function withScanBudget(filters: readonly Filter[], limit: number, side: Side): readonly Filter[] {
  if (!filters.some((f) => isCustomDetector(f.detector))) return filters;
  const budget = new StepBudget(limit);
  // One bound detector per detector, so that each still runs once per text however many filters share it.
  const bound = new Map<Detector, Detector>();
  return filters.map((filter) => {
    const detector = filter.detector;
    if (!isCustomDetector(detector)) return filter;
    let within = bound.get(detector);
    if (!within) bound.set(detector, (within = detector.within(budget, () => scanBudgetError(filter, limit, side))));
    return { ...filter, detector: within };
  });
}

export function scanBudgetError(filter: Filter, limit: number, side: Side): GatewayError {
  const { guardrail } = filter;
  const subject = side === "input" ? "Request" : "Response";
  return new GatewayError(
    "permission_denied",
    `${subject} blocked by guardrail "${guardrail.name}": checking it takes more than the scan budget of ${limit.toLocaleString("en-US")} steps (guardrails.scan_budget_steps)`,
    {
      status: 403,
      metadata: { guardrail_id: guardrail.id, guardrail_name: guardrail.name, guardrail_scope: guardrail.scope, side, scan_budget_steps: limit },
    },
  );
}
