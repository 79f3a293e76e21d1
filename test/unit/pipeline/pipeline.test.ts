/** core/pipeline/pipeline.ts: the one ordered list of stages (ARCHITECTURE §4). */
import { expect, test } from "bun:test";
import { PIPELINE } from "../../../core/pipeline/pipeline.ts";

test("the pipeline order is the architecture's, outermost first", () => {
  expect(PIPELINE.map((s) => s.name)).toEqual(["auth", "strict", "limits", "guardrails", "accounting", "plugins", "agent-loop"]);
  expect(Object.isFrozen(PIPELINE)).toBe(true);
});
