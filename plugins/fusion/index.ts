/**
 * `fusion` (reference b5, §4): a panel of `analysis_models` (1–8, or a `preset`'s list) answers the request in
 * parallel, each with the web tools (`tools`, default web_search and web_fetch, within `max_tool_calls` 1–16,
 * default 4); then the analyst (`model`, else the request's model) compares their drafts and writes the answer the
 * client gets, at temperature 0. Every call is a turn of this request, so usage and cost add up. A panel model
 * that fails is left out (all failing: the analyst answers alone, `failure_reason: all_panels_failed`).
 *
 * It wraps the request's first turn (`around`): a streamed reply starts at once and carries SSE keep-alives while
 * the panel works, then streams the analyst's answer; the panel's work is in `service_metadata.pipeline`. Later
 * turns of the same request (the analyst calling server tools) reuse the drafts. The panel's own calls are
 * requests of their own (`complete`), so this hook does not wrap them.
 */
import { Type } from "@sinclair/typebox";
import { definePlugin, eventsFromResponse, responseOutcome, streamOutcome, type CanonicalRequest, type EventStream, type GatewayError, type Outcome, type PluginContext, type Turn } from "../../core/sdk/index.ts";
import { literals } from "../router-kit/options.ts";
import { runPanel, type PanelRun } from "./panel.ts";
import { panelPart, withPanel, withPanelEvents } from "./phase.ts";
import { PRESETS, presetModels, type Preset } from "./presets.ts";
import { analystPrompt } from "./prompt.ts";

const ID = "fusion";
export const DEFAULT_MAX_TOOL_CALLS = 4;
export const DEFAULT_PRESET: Preset = "general-high";
const DEFAULT_TOOLS = ["web_search", "web_fetch"] as const;
const Models = Type.Array(Type.String({ minLength: 1, maxLength: 256 }), { minItems: 1, maxItems: 8 });

interface FusionState {
  /** The client's request body: the turns of this request carry it, a judge's or another plugin's request does not. */
  original: Record<string, unknown>;
  panel: string[];
  analyst: string;
  preset: Preset | undefined;
  run?: Promise<PanelRun>;
}

export default definePlugin({
  id: ID,
  description: "A panel of models answers in parallel (with web tools); an analyst writes the final answer from their drafts.",
  // After the routers and web (the analyst is chosen, the search results are in the prompt the panel sees).
  priority: -30,
  optionsSchema: Type.Object(
    {
      preset: Type.Optional(literals(PRESETS)),
      analysis_models: Type.Optional(Models),
      model: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
      max_tool_calls: Type.Optional(Type.Integer({ minimum: 1, maximum: 16 })),
      tools: Type.Optional(Type.Array(literals(["web_search", "web_fetch"]), { maxItems: 8 })),
      max_completion_tokens: Type.Optional(Type.Integer({ minimum: 1 })),
      temperature: Type.Optional(Type.Number({ minimum: 0, maximum: 2 })),
      /** Operator setting (config `plugins.fusion.presets`): the model list of each preset. */
      presets: Type.Optional(Type.Partial(Type.Object({ "general-high": Models, "general-budget": Models, "general-fast": Models }, { additionalProperties: false }))),
    },
    { additionalProperties: false },
  ),
  hooks: {
    pre(ctx) {
      const preset = ctx.options.preset as Preset | undefined;
      const panel = Array.isArray(ctx.options.analysis_models) ? (ctx.options.analysis_models as string[]) : presetModels(ctx, preset ?? DEFAULT_PRESET);
      checkModels(ctx, panel);
      const analyst = typeof ctx.options.model === "string" ? ctx.options.model : ctx.request.model;
      if (analyst === undefined) throw invalid(ctx, "model", "fusion needs an analyst: the request's model or the plugin's model option");
      checkModels(ctx, [analyst], "model");
      if (analyst !== ctx.request.model) ctx.request = { ...ctx.request, model: analyst, models: [] };
      const state: FusionState = { original: ctx.request.original, panel: [...new Set(panel)], analyst, preset: Array.isArray(ctx.options.analysis_models) ? undefined : (preset ?? DEFAULT_PRESET) };
      ctx.state.set("fusion", state);
    },
    around(ctx, turn) {
      const state = ctx.state.get("fusion") as FusionState | undefined;
      if (!state || ctx.request.original !== state.original) return turn(ctx.request);
      state.run ??= panelRun(ctx, state);
      if (!ctx.request.stream) {
        return state.run.then(async (run) => {
          const outcome = await turn(analystRequest(ctx.request, run));
          const part = panelPart(ctx, run, state.panel, state.analyst);
          return outcome.kind === "response" ? responseOutcome(withPanel(outcome.response, part)) : outcome;
        });
      }
      return Promise.resolve(analystStream(ctx, turn, state));
    },
  },
});

/** Runs the panel once for the request and reports it. */
async function panelRun(ctx: PluginContext, state: FusionState): Promise<PanelRun> {
  const o = ctx.options;
  const started = performance.now();
  const run = await runPanel(ctx, ctx.request, {
    models: state.panel,
    tools: Array.isArray(o.tools) ? (o.tools as string[]) : DEFAULT_TOOLS,
    maxToolCalls: typeof o.max_tool_calls === "number" ? o.max_tool_calls : DEFAULT_MAX_TOOL_CALLS,
    maxTokens: typeof o.max_completion_tokens === "number" ? o.max_completion_tokens : undefined,
    temperature: typeof o.temperature === "number" ? o.temperature : undefined,
  });
  const failed = run.records.filter((r) => r.status === "failed").length;
  const allFailed = run.drafts.length === 0;
  const broke = run.records.every((r) => r.error_type === "payment_required") ? "insufficient_credits" : "all_panels_failed";
  if (allFailed) ctx.request.warnings.push({ code: "fusion", field: "plugins", message: "fusion: every analysis model failed; the analyst answered alone" });
  ctx.report({
    strategy: "fusion",
    summary: `fusion: ${run.drafts.length} draft(s) from ${state.panel.length} model(s)${failed > 0 ? ` (${failed} failed)` : ""}, analyst ${state.analyst}`,
    data: {
      ...(state.preset ? { preset: state.preset } : {}),
      analysis_models: state.panel,
      analyst_model: state.analyst,
      panels: run.records,
      panel_ms: Math.round(performance.now() - started),
      ...(run.unavailableTools.length > 0 ? { unavailable_tools: run.unavailableTools } : {}),
      ...(allFailed ? { failure_reason: broke } : {}),
    },
  });
  return run;
}

/** The turn's request with the drafts before the analyst (temperature 0: it compares, it does not invent). */
function analystRequest(request: CanonicalRequest, run: PanelRun): CanonicalRequest {
  const sampling = { ...request.sampling, temperature: 0 };
  if (run.drafts.length === 0) return { ...request, sampling };
  return { ...request, sampling, system: [...request.system, { type: "text", text: analystPrompt(run.drafts) }] };
}

/**
 * A streamed reply that starts before the panel is done (so keep-alives flow), then relays the analyst's turn. A
 * failure after the start arrives in-band, as any stream's does.
 */
function analystStream(ctx: PluginContext, turn: Turn, state: FusionState): Outcome {
  let inner: Outcome | undefined;
  let released = false;
  async function* events(): EventStream {
    let run: PanelRun;
    try {
      run = await state.run!;
      if (released) return;
      inner = await turn(analystRequest(ctx.request, run));
    } catch (thrown) {
      yield { type: "error", error: asGatewayError(ctx, thrown) };
      return;
    }
    const answer = inner.kind === "stream" ? inner.events : eventsFromResponse(inner.response);
    yield* withPanelEvents(answer, panelPart(ctx, run, state.panel, state.analyst));
  }
  return streamOutcome(events(), () => {
    released = true;
    if (inner?.kind === "stream") inner.abandon();
  });
}

function asGatewayError(ctx: PluginContext, thrown: unknown): GatewayError {
  const e = thrown as Partial<GatewayError> | null;
  if (e && typeof e.type === "string" && typeof e.status === "number") return thrown as GatewayError;
  return ctx.helpers.error("server", "fusion: the analyst's turn failed");
}

function checkModels(ctx: PluginContext, models: readonly string[], key = "analysis_models"): void {
  models.forEach((model, index) => {
    if (!ctx.catalog.model(model)) throw invalid(ctx, key === "model" ? key : `${key}[${index}]`, `model "${model}" is not available on this gateway`);
  });
}

function invalid(ctx: PluginContext, key: string, message: string): GatewayError {
  const index = ctx.request.plugins.findIndex((entry) => entry.id === ID);
  const param = `${index === -1 ? `plugins.${ID}` : `plugins[${index}]`}.${key}`;
  return ctx.helpers.error("invalid_request", `${param}: ${message}`, { metadata: { param } });
}
