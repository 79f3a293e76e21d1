/**
 * The fusion phase as the client sees it: one `service:fusion`
 * server-tool part before the analyst's answer, in every format, whose result is the reference's fusion result
 * `{status, analysis?, responses[{model, content}], failed_models?, failure_reason?}` (a Responses `service:fusion`
 * item, a Messages `server_tool_use` + `service_fusion_tool_result`, chat `server_tool_calls`). Non-streamed it
 * leads the output; streamed, see `stream.ts`.
 */
import type { CanonicalResponse, Part, PluginContext } from "../../core/sdk/index.ts";
import type { FusionPlan, FusionRun } from "./run.ts";

export type FusionPart = Extract<Part, { type: "server-tool" }>;

/** The part's id, in the format's own server-tool id scheme. */
export function phaseId(ctx: PluginContext): string {
  return ctx.helpers.id(ctx.request.format === "messages" ? "srvtoolu_" : "st_");
}

export function phaseArguments(plan: FusionPlan): string {
  return JSON.stringify({ analysis_models: plan.panel, model: plan.analyst });
}

export function fusionResult(run: FusionRun): Record<string, unknown> {
  const { drafts, records } = run.panel;
  const failed = records.filter((r) => r.status === "failed").map((r) => ({ model: r.model, error: r.error ?? "failed", ...(r.status_code !== undefined ? { status_code: r.status_code } : {}) }));
  const result: Record<string, unknown> = { status: drafts.length > 0 ? "ok" : "error" };
  if (run.analysis) result.analysis = run.analysis;
  result.responses = drafts.map((d) => ({ model: d.model, content: d.text }));
  if (failed.length > 0) result.failed_models = failed;
  if (drafts.length === 0) result.failure_reason = "all_panels_failed";
  return result;
}

export function panelPart(id: string, plan: FusionPlan, run: FusionRun): FusionPart {
  return { type: "server-tool", id, callId: id, name: "service:fusion", arguments: phaseArguments(plan), status: "completed", result: fusionResult(run) };
}

/** The analyst's response with the panel part first. */
export function withPanel(response: CanonicalResponse, part: FusionPart): CanonicalResponse {
  return { ...response, parts: [part, ...response.parts] };
}
