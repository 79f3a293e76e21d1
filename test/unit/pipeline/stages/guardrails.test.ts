/** core/pipeline/stages/guardrails.ts: passes the request through today. */
import { expect, test } from "bun:test";
import { responseOutcome } from "../../../../core/pipeline/outcome.ts";
import { guardrailsStage } from "../../../../core/pipeline/stages/guardrails.ts";
import { response, stubNext, testContext } from "../helpers.ts";

test("guardrails calls next exactly once, returns its outcome and propagates its failure", async () => {
  expect(guardrailsStage.name).toBe("guardrails");
  const inner = responseOutcome(response());
  const next = stubNext(() => inner);
  expect(await guardrailsStage.run(testContext(), next)).toBe(inner);
  expect(next.calls).toBe(1);
  await expect(guardrailsStage.run(testContext(), () => Promise.reject(new Error("inner")))).rejects.toThrow("inner");
});
