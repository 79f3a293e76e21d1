import { describe, expect, test } from "bun:test";
import { stopReason, type LoopProgress } from "../../../../core/pipeline/agent/stop.ts";
import { emptyUsage } from "../../../../core/model/usage.ts";

const progress = (over: Partial<LoopProgress> = {}): LoopProgress => ({
  steps: 1,
  cost: 0.5,
  usage: { ...emptyUsage(), input: { total: 60, cacheRead: 0, cacheWrite: 0 }, output: { total: 40, reasoning: 0 } },
  calledTools: ["web_search", "service:web_search"],
  finish: { reason: "tool_calls", raw: "tool_calls" },
  ...over,
});

describe("stopReason", () => {
  test("without conditions, max_tool_calls (default 30) bounds the steps", () => {
    expect(stopReason(undefined, undefined, progress({ steps: 29 }))).toBeUndefined();
    expect(stopReason(undefined, undefined, progress({ steps: 30 }))).toContain("max_tool_calls (30)");
    expect(stopReason(undefined, 2, progress({ steps: 2 }))).toContain("max_tool_calls (2)");
  });

  test("conditions override max_tool_calls", () => {
    expect(stopReason([{ type: "step_count_is", step_count: 5 }], 1, progress({ steps: 3 }))).toBeUndefined();
  });

  test("each kind at its boundary", () => {
    expect(stopReason([{ type: "step_count_is", step_count: 2 }], undefined, progress({ steps: 1 }))).toBeUndefined();
    expect(stopReason([{ type: "step_count_is", step_count: 2 }], undefined, progress({ steps: 2 }))).toBe("step_count_is 2");
    expect(stopReason([{ type: "max_cost", max_cost_in_dollars: 0.5 }], undefined, progress())).toBeUndefined();
    expect(stopReason([{ type: "max_cost", max_cost_in_dollars: 0.49 }], undefined, progress())).toBe("max_cost 0.49");
    expect(stopReason([{ type: "max_tokens_used", max_tokens: 100 }], undefined, progress())).toBeUndefined();
    expect(stopReason([{ type: "max_tokens_used", max_tokens: 99 }], undefined, progress())).toBe("max_tokens_used 99");
    expect(stopReason([{ type: "has_tool_call", tool_name: "service:web_search" }], undefined, progress())).toBe("has_tool_call service:web_search");
    expect(stopReason([{ type: "has_tool_call", tool_name: "web_fetch" }], undefined, progress())).toBeUndefined();
    expect(stopReason([{ type: "finish_reason_is", reason: "tool_calls" }], undefined, progress())).toBe("finish_reason_is tool_calls");
    expect(stopReason([{ type: "finish_reason_is", reason: "max_tokens" }], undefined, progress({ finish: { reason: "length", raw: "max_tokens" } }))).toBe("finish_reason_is max_tokens");
    expect(stopReason([{ type: "finish_reason_is", reason: "length" }], undefined, progress())).toBeUndefined();
  });

  test("the first condition that fires is named", () => {
    const conditions = [{ type: "max_cost" as const, max_cost_in_dollars: 9 }, { type: "step_count_is" as const, step_count: 1 }, { type: "max_tokens_used" as const, max_tokens: 1 }];
    expect(stopReason(conditions, undefined, progress())).toBe("step_count_is 1");
  });
});
