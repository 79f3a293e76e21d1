/** core/pipeline/order.ts: the one ordered list of stages (ARCHITECTURE §4). */
import { expect, test } from "bun:test";
import { PIPELINE } from "../../../core/pipeline/order.ts";

test("the pipeline order is the architecture's, outermost first", () => {
  expect(PIPELINE.map((s) => s.name)).toEqual([
    "format-out",
    "auth",
    "limits",
    "guardrails",
    "accounting",
    "pre-plugins",
    "routing",
    "route-plugins",
    "post-plugins",
    "agent-loop",
    "call-with-fallbacks",
  ]);
  expect(Object.isFrozen(PIPELINE)).toBe(true);
});
