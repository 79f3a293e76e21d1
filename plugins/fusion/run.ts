/**
 * One fusion run for a request: the panel drafts (in parallel), then — when there are drafts to compare — the
 * analysis call, then the pipeline entry saying what happened. `progress`, when given, hears each phase as it
 * happens (the streamed reply relays them live); non-streamed requests pass none and their panel runs unstreamed.
 */
import type { PluginContext } from "../../core/sdk/index.ts";
import { analyse, type Analysis, type AnalysisFailure } from "./analysis.ts";
import { runPanel, type PanelRun, type Progress } from "./panel.ts";
import type { Preset } from "./presets.ts";

export interface FusionPlan {
  panel: string[];
  analyst: string;
  preset: Preset | undefined;
  tools: readonly string[];
  maxToolCalls: number;
  maxTokens: number | undefined;
  temperature: number | undefined;
}

export interface FusionRun {
  panel: PanelRun;
  /** The analyst's comparison of the drafts, when its call succeeded. */
  analysis?: Analysis;
  analysisFailure?: { reason: AnalysisFailure; detail: string };
}

export async function runFusion(ctx: PluginContext, plan: FusionPlan, progress?: Progress): Promise<FusionRun> {
  const started = performance.now();
  const panel = await runPanel(ctx, ctx.request, { models: plan.panel, tools: plan.tools, maxToolCalls: plan.maxToolCalls, maxTokens: plan.maxTokens, temperature: plan.temperature }, progress);
  const panelMs = Math.round(performance.now() - started);
  const run: FusionRun = { panel };
  if (panel.drafts.length > 0) {
    // The reference's analysis is made by a judge; ours is the analyst itself, in a call of its own.
    progress?.("analysis.in_progress", { analyst_model: plan.analyst, judge_model: plan.analyst });
    const result = await analyse(ctx, ctx.request, plan.analyst, panel.drafts);
    if ("analysis" in result) {
      run.analysis = result.analysis;
      progress?.("analysis.completed", { analysis: result.analysis });
    } else run.analysisFailure = { reason: result.failure, detail: result.detail };
  }
  report(ctx, plan, run, panelMs, Math.round(performance.now() - started));
  return run;
}

function report(ctx: PluginContext, plan: FusionPlan, run: FusionRun, panelMs: number, totalMs: number): void {
  const { panel } = run;
  const failed = panel.records.filter((r) => r.status === "failed").length;
  const allFailed = panel.drafts.length === 0;
  const broke = panel.records.every((r) => r.error_type === "payment_required") ? "insufficient_credits" : "all_panels_failed";
  if (allFailed) ctx.request.warnings.push({ code: "fusion", field: "plugins", message: "fusion: every analysis model failed; the analyst answered alone" });
  if (run.analysisFailure) ctx.request.warnings.push({ code: "fusion", field: "plugins", message: `fusion: the analysis of the drafts failed (${run.analysisFailure.reason}); the analyst answered from the drafts alone` });
  ctx.report({
    strategy: "fusion",
    summary: `fusion: ${panel.drafts.length} draft(s) from ${plan.panel.length} model(s)${failed > 0 ? ` (${failed} failed)` : ""}, analyst ${plan.analyst}${run.analysisFailure ? " (analysis failed)" : ""}`,
    data: {
      ...(plan.preset ? { preset: plan.preset } : {}),
      analysis_models: plan.panel,
      analyst_model: plan.analyst,
      panels: panel.records,
      panel_ms: panelMs,
      ...(panel.drafts.length > 0 ? { analysis: run.analysis ? "completed" : "failed", analysis_ms: totalMs - panelMs } : {}),
      ...(run.analysisFailure ? { analysis_failure: run.analysisFailure.reason, analysis_error: run.analysisFailure.detail } : {}),
      ...(panel.unavailableTools.length > 0 ? { unavailable_tools: panel.unavailableTools } : {}),
      ...(allFailed ? { failure_reason: broke } : {}),
    },
  });
}
