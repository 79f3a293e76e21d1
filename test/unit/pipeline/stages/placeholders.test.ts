/** core/pipeline/stages/placeholders.ts: stages that only pass the request through today. */
import { expect, test } from "bun:test";
import { agentLoopStage, guardrailsStage, limitsStage } from "../../../../core/pipeline/stages/placeholders.ts";
import { stubNext, testContext } from "../helpers.ts";

test("limits, guardrails and agent-loop call next exactly once and propagate its failure", async () => {
  expect([limitsStage.name, guardrailsStage.name, agentLoopStage.name]).toEqual(["limits", "guardrails", "agent-loop"]);
  for (const stage of [limitsStage, guardrailsStage, agentLoopStage]) {
    const next = stubNext();
    await stage.run(testContext(), next);
    expect(next.calls).toBe(1);
    await expect(stage.run(testContext(), () => Promise.reject(new Error("inner")))).rejects.toThrow("inner");
  }
});
