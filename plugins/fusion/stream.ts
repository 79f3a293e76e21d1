/**
 * The streamed fusion reply. It starts at once (the analyst's identity, then the `service:fusion` item running) and
 * relays the phase as it happens: `fusion_call.in_progress`, each panel model's `panel.added`, its text and
 * reasoning deltas while it writes, `panel.completed` / `panel.failed`, then `analysis.in_progress` and
 * `analysis.completed`, `fusion_call.completed`, and the item's end with the whole result (the peer's events;
 * Responses shows them as `response.fusion_call.*`, the other formats show the item's start and end). Then the
 * analyst's answer streams. Nothing is held back: events pass from the panel's streams through a queue as they come.
 */
import type { EventStream, Outcome, PluginContext, StreamEvent, Turn } from "../../core/sdk/index.ts";
import { eventsFromResponse, streamOutcome, type GatewayError } from "../../core/sdk/index.ts";
import { Channel } from "./channel.ts";
import { phaseArguments, phaseId, fusionResult } from "./phase.ts";
import { runFusion, type FusionPlan, type FusionRun } from "./run.ts";

type Start = Extract<StreamEvent, { type: "start" }>;

/** `onRun` receives the run as soon as it starts, so later turns of the request reuse it. */
export function fusionStream(
  ctx: PluginContext,
  turn: Turn,
  plan: FusionPlan,
  analystRequest: (run: FusionRun) => Parameters<Turn>[0],
  onRun: (run: Promise<FusionRun>) => void,
): Outcome {
  let inner: Outcome | undefined;
  let released = false;
  async function* events(): EventStream {
    const id = phaseId(ctx);
    const phase = new Channel<StreamEvent>();
    const progress = (event: string, data: Record<string, unknown>) => phase.push({ type: "server-tool-progress", id, event: `fusion_call.${event}`, data });
    const start = await startOf(ctx, plan.analyst);
    yield start;
    yield { type: "server-tool-start", id, callId: id, name: "service:fusion", arguments: phaseArguments(plan) };
    progress("in_progress", {});
    const running = runFusion(ctx, plan, progress);
    onRun(running);
    running.then(
      () => phase.close(),
      () => phase.close(),
    );
    for await (const event of phase) {
      if (released) return;
      yield event;
    }
    let run: FusionRun;
    try {
      run = await running;
      yield { type: "server-tool-progress", id, event: "fusion_call.completed", data: {} };
      yield { type: "server-tool-end", id, status: "completed", result: fusionResult(run) };
      if (released) return;
      inner = await turn(analystRequest(run));
    } catch (thrown) {
      yield { type: "error", error: asGatewayError(ctx, thrown) };
      return;
    }
    const answer = inner.kind === "stream" ? inner.events : eventsFromResponse(inner.response);
    for await (const event of answer) {
      // The client already has the stream's identity; a different one (a fallback served the analyst) replaces it.
      if (event.type === "start" && event.model === start.model && event.provider === start.provider) continue;
      yield event;
    }
  }
  return streamOutcome(events(), () => {
    released = true;
    if (inner?.kind === "stream") inner.abandon();
  });
}

/** The identity the stream opens with, before any model answered: the analyst on the endpoint routing would try first. */
async function startOf(ctx: PluginContext, analyst: string): Promise<Start> {
  const route = await ctx.route({ ...ctx.request, model: analyst, models: [] }).catch(() => undefined);
  const provider = route?.endpoints[0]?.provider ?? ctx.catalog.model(analyst)?.endpoints[0]?.provider ?? "";
  return { type: "start", id: "", model: analyst, provider, created: Math.floor(ctx.helpers.now() / 1000) };
}

function asGatewayError(ctx: PluginContext, thrown: unknown): GatewayError {
  const e = thrown as Partial<GatewayError> | null;
  if (e && typeof e.type === "string" && typeof e.status === "number") return thrown as GatewayError;
  return ctx.helpers.error("server", "fusion: the analyst's turn failed");
}
