/** core/pipeline/stages/placeholders.ts: stages that only pass the request through today. */
import { expect, test } from "bun:test";
import { agentLoopStage, guardrailsStage } from "../../../../core/pipeline/stages/placeholders.ts";
import { stubNext, testContext } from "../helpers.ts";

test("guardrails and agent-loop call next exactly once and propagate its failure", async () => {
  expect([guardrailsStage.name, agentLoopStage.name]).toEqual(["guardrails", "agent-loop"]);
  for (const stage of [guardrailsStage, agentLoopStage]) {
    const next = stubNext();
    await stage.run(testContext(), next);
    expect(next.calls).toBe(1);
    await expect(stage.run(testContext(), () => Promise.reject(new Error("inner")))).rejects.toThrow("inner");
  }
});
