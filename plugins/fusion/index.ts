/**
 * `fusion`: a panel of `analysis_models` (1–8, or a `preset`'s list) answers the request in
 * parallel, each with the web tools (`tools`, default web_search and web_fetch, within `max_tool_calls` 1–16,
 * default 4); then the analyst (`model`, else the request's model) compares their drafts — a call of its own that
 * returns the structured `analysis` (analysis.ts) — and writes the answer the client gets, at temperature 0. Every
 * call is a turn of this request, so usage and cost add up. A panel model that fails is left out (all failing: the
 * analyst answers alone, `failure_reason: all_panels_failed`); a failed analysis only leaves `analysis` out.
 *
 * It wraps the request's first turn (`around`): a streamed reply starts at once and shows the phase live
 * (stream.ts), then streams the analyst's answer; the panel's work is also in `service_metadata.pipeline`. Later
 * turns of the same request (the analyst calling server tools) reuse the drafts. The panel's own calls are
 * requests of their own (`complete`), so this hook does not wrap them.
 */
import { Type } from "@sinclair/typebox";
import { definePlugin, responseOutcome, type CanonicalRequest, type GatewayError, type PluginContext } from "../../core/sdk/index.ts";
import { literals } from "../router-kit/options.ts";
import { panelPart, phaseId, withPanel } from "./phase.ts";
import { PRESETS, presetModels, type Preset } from "./presets.ts";
import { analystPrompt } from "./prompt.ts";
import { runFusion, type FusionPlan, type FusionRun } from "./run.ts";
import { fusionStream } from "./stream.ts";

const ID = "fusion";
export const DEFAULT_MAX_TOOL_CALLS = 4;
export const DEFAULT_PRESET: Preset = "general-high";
const DEFAULT_TOOLS = ["web_search", "web_fetch"] as const;
const Models = Type.Array(Type.String({ minLength: 1, maxLength: 256 }), { minItems: 1, maxItems: 8 });

interface FusionState {
  /** The client's request body: the turns of this request carry it, a judge's or another plugin's request does not. */
  original: Record<string, unknown>;
  plan: FusionPlan;
  /** Set by the first turn; later turns (the analyst calling server tools) reuse it and show no phase again. */
  run?: Promise<FusionRun>;
}

export default definePlugin({
  id: ID,
  description: "A panel of models answers in parallel (with web tools); the analyst compares their drafts and writes the final answer.",
  // After the routers and web (the analyst is chosen, the search results are in the prompt the panel sees).
  priority: -30,
  // The analysis reply is repaired with response-healing's own repair (analysis.ts imports ../response-healing/heal.ts).
  requires: { plugins: ["response-healing"] },
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
    async pre(ctx) {
      const o = ctx.options;
      const preset = o.preset as Preset | undefined;
      const panel = Array.isArray(o.analysis_models) ? (o.analysis_models as string[]) : presetModels(ctx, preset ?? DEFAULT_PRESET);
      checkModels(ctx, panel);
      const analyst = typeof o.model === "string" ? o.model : ctx.request.model;
      if (analyst === undefined) throw invalid(ctx, "model", "fusion needs an analyst: the request's model or the plugin's model option");
      checkModels(ctx, [analyst], "model");
      if (analyst !== ctx.request.model) {
        ctx.request = { ...ctx.request, model: analyst, models: [] };
        // The request's reservation was sized for its own model: the answer's turn on the analyst reserves its own
        // now, before the panel spends, so it cannot be the 402 after the panel was billed (a key short of it gets
        // the 402 before anything ran).
        await ctx.reserveTurn(ctx.request);
      }
      const plan: FusionPlan = {
        panel: [...new Set(panel)],
        analyst,
        preset: Array.isArray(o.analysis_models) ? undefined : (preset ?? DEFAULT_PRESET),
        tools: Array.isArray(o.tools) ? (o.tools as string[]) : DEFAULT_TOOLS,
        maxToolCalls: typeof o.max_tool_calls === "number" ? o.max_tool_calls : DEFAULT_MAX_TOOL_CALLS,
        maxTokens: typeof o.max_completion_tokens === "number" ? o.max_completion_tokens : undefined,
        temperature: typeof o.temperature === "number" ? o.temperature : undefined,
      };
      ctx.state.set("fusion", { original: ctx.request.original, plan } satisfies FusionState);
    },
    around(ctx, turn) {
      const state = ctx.state.get("fusion") as FusionState | undefined;
      if (!state || ctx.request.original !== state.original) return turn(ctx.request);
      const request = ctx.request;
      if (state.run) return state.run.then((run) => turn(analystRequest(request, run)));
      if (request.stream) return Promise.resolve(fusionStream(ctx, turn, state.plan, (run) => analystRequest(request, run), (run) => (state.run = run)));
      state.run = runFusion(ctx, state.plan);
      return state.run.then(async (run) => {
        const outcome = await turn(analystRequest(request, run));
        return outcome.kind === "response" ? responseOutcome(withPanel(outcome.response, panelPart(phaseId(ctx), state.plan, run))) : outcome;
      });
    },
  },
});

/** The turn's request with the drafts (and the analysis) before the analyst (temperature 0: it compares, it does not invent). */
function analystRequest(request: CanonicalRequest, run: FusionRun): CanonicalRequest {
  const sampling = { ...request.sampling, temperature: 0 };
  if (run.panel.drafts.length === 0) return { ...request, sampling };
  return { ...request, sampling, system: [...request.system, { type: "text", text: analystPrompt(run.panel.drafts, run.analysis) }] };
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
