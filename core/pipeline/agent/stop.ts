/**
 * When the agent loop stops asking the model for more tool steps (spec `max_tool_calls`, `stop_server_tools_when`).
 * Checked after each step's calls ran: any condition that fires makes the next turn the last one,
 * made with tool calls disabled, so the reply ends in the model's words. `stop_server_tools_when` overrides
 * `max_tool_calls` (default 30).
 */
import type { StopCondition } from "../../model/request.ts";
import type { Usage } from "../../model/usage.ts";

export const DEFAULT_MAX_TOOL_CALLS = 30;

/** What the loop has done so far, as the conditions read it. */
export interface LoopProgress {
  /** Steps made (turns whose server-tool calls ran). */
  steps: number;
  /** USD spent by the request so far (all turns and tool charges). */
  cost: number;
  usage: Usage;
  /** Tools the latest step called: their types (`service:web_search`) and the names the model used. */
  calledTools: readonly string[];
  /** The latest turn's finish reason: raw upstream value and unified reason. */
  finish: { reason: string; raw?: string | undefined };
}

/** The first condition that fires, described for the loop's metadata; undefined while the loop may go on. */
export function stopReason(conditions: readonly StopCondition[] | undefined, maxToolCalls: number | undefined, progress: LoopProgress): string | undefined {
  if (!conditions) {
    const max = maxToolCalls ?? DEFAULT_MAX_TOOL_CALLS;
    return progress.steps >= max ? `max_tool_calls (${max}) reached` : undefined;
  }
  for (const condition of conditions) {
    const fired = describeIfFired(condition, progress);
    if (fired) return fired;
  }
  return undefined;
}

function describeIfFired(condition: StopCondition, progress: LoopProgress): string | undefined {
  switch (condition.type) {
    case "step_count_is":
      return progress.steps >= condition.step_count ? `step_count_is ${condition.step_count}` : undefined;
    case "max_cost":
      return progress.cost > condition.max_cost_in_dollars ? `max_cost ${condition.max_cost_in_dollars}` : undefined;
    case "max_tokens_used":
      return tokensUsed(progress.usage) > condition.max_tokens ? `max_tokens_used ${condition.max_tokens}` : undefined;
    case "has_tool_call":
      return progress.calledTools.includes(condition.tool_name) ? `has_tool_call ${condition.tool_name}` : undefined;
    case "finish_reason_is":
      return progress.finish.raw === condition.reason || progress.finish.reason === condition.reason ? `finish_reason_is ${condition.reason}` : undefined;
  }
}

function tokensUsed(usage: Usage): number {
  return usage.input.total + usage.output.total;
}
