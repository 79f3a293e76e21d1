/**
 * The alignment plugin's record of one request, kept in the plugin's per-request state: every judged call in order
 * (`call` numbered from 1, continuing across retries and agent-loop turns), shown as the result's `alignment` field
 * and in its errors' `metadata.alignment`; and the usage of the turns it made, summed for those errors.
 */
import type { AlignmentReport, CanonicalResponse } from "../../core/sdk/index.ts";
import type { PluginContext } from "../../core/sdk/index.ts";
import type { Judgement } from "./evaluator.ts";

export interface AlignmentState {
  calls: AlignmentReport["calls"];
  promptTokens: number;
  completionTokens: number;
}

export function stateOf(ctx: PluginContext): AlignmentState {
  let state = ctx.state.get("alignment") as AlignmentState | undefined;
  if (!state) ctx.state.set("alignment", (state = { calls: [], promptTokens: 0, completionTokens: 0 }));
  return state;
}

/** Records a judged turn; returns its call number. */
export function record(state: AlignmentState, judgement: Judgement, response: CanonicalResponse): number {
  const call = state.calls.length + 1;
  state.calls.push(judgement.outcome === "unavailable" ? { call, outcome: "unavailable", reason: judgement.reason } : { call, outcome: judgement.outcome, rules: judgement.rules });
  state.promptTokens += response.usage.input.total;
  state.completionTokens += response.usage.output.total;
  return call;
}

export function reportOf(state: AlignmentState): AlignmentReport {
  return { calls: state.calls.map((c) => ({ ...c })) };
}
