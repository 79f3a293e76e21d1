/**
 * A request's scan budget (core/guardrails/pattern/scan-budget.ts): operators' patterns, all of them together, stop
 * at it with the 403 that names it and the guardrail whose pattern was running; built-in detectors are left as
 * they are; a detector that several filters share still runs once per text.
 */
import { describe, expect, test } from "bun:test";
import { BUILTIN_DETECTORS } from "../../../../core/guardrails/detectors/builtins.ts";
import { customDetector } from "../../../../core/guardrails/detectors/custom.ts";
import { withScanBudget } from "../../../../core/guardrails/pattern/scan-budget.ts";
import type { Filter } from "../../../../core/guardrails/policy.ts";
import type { TextSlot } from "../../../../core/guardrails/request-texts.ts";
import { scanSlots } from "../../../../core/guardrails/scan.ts";
import { isGatewayError } from "../../../../core/errors.ts";

const guardrail = { id: "grd_1", name: "busy", scope: "api-key" as const };
const filter = (detector: Filter["detector"], action: Filter["action"] = "flag"): Filter => ({ guardrail, detector, action, scanScope: "all_messages", input: true, output: true });
const slot = (text: string): TextSlot => ({ role: "user", text, set: () => undefined });

describe("withScanBudget", () => {
  test("without operator patterns the filters are returned as they are", () => {
    const filters = [filter(BUILTIN_DETECTORS.get("email")!)];
    expect(withScanBudget(filters, 10, "input")).toBe(filters);
  });

  test("within the budget the findings are the unbounded ones; past it, a 403 naming the budget, the guardrail and the side", async () => {
    const detector = customDetector("(?:.?){10}Q", undefined, 0);
    const text = "x".repeat(2_000) + "Q";
    const unbounded = await scanSlots([slot(text)], [filter(detector)], "input");
    const within = await scanSlots([slot(text)], withScanBudget([filter(detector)], 100_000, "input"), "input");
    expect(within.flags.map((h) => h.finding)).toEqual(unbounded.flags.map((h) => h.finding));
    let thrown: unknown;
    try {
      await scanSlots([slot(text)], withScanBudget([filter(detector)], 1_000, "output"), "output");
    } catch (error) {
      thrown = error;
    }
    expect(isGatewayError(thrown)).toBe(true);
    const error = thrown as { status: number; type: string; message: string; metadata: unknown };
    expect({ status: error.status, type: error.type, message: error.message, metadata: error.metadata }).toEqual({
      status: 403,
      type: "permission_denied",
      message: 'Response blocked by guardrail "busy": checking it takes more than the scan budget of 1,000 steps (guardrails.scan_budget_steps)',
      metadata: { guardrail_id: "grd_1", guardrail_name: "busy", guardrail_scope: "api-key", side: "output", scan_budget_steps: 1_000 },
    });
  });

  test("one budget for every pattern of the request; a detector shared by two filters runs (and counts) once", async () => {
    const detector = customDetector("(?:.?){10}Q", undefined, 0);
    const text = "x".repeat(1_000);
    // One pass costs about 21 steps a character: two detectors need twice that, one shared detector only once.
    const shared = withScanBudget([filter(detector), filter(detector, "block")], 30_000, "input");
    expect(shared[0]!.detector).toBe(shared[1]!.detector);
    await expect(scanSlots([slot(text)], shared, "input")).resolves.toBeDefined();
    const two = withScanBudget([filter(detector), filter(customDetector("(?:.?){10}Q", undefined, 1))], 30_000, "input");
    await expect(scanSlots([slot(text)], two, "input")).rejects.toThrow("scan budget of 30,000 steps");
  });
});
