/**
 * The panel phase as the client sees it (issue 14 item 7: "the stream shows the phases"): one `service:fusion`
 * server-tool part — the panel's drafts and failures — placed before the analyst's answer, in every format (a
 * Responses `service:fusion` item with `responses` and `failed_models`, as the reference's fusion item has them; a
 * Messages `server_tool_use` + `service_fusion_tool_result`; chat `server_tool_calls`). Streamed, it arrives as the
 * analyst's turn begins, right after the panel finished; non-streamed it leads the output.
 */
import type { CanonicalResponse, EventStream, Part, PluginContext, StreamEvent } from "../../core/sdk/index.ts";
import type { PanelRun } from "./panel.ts";

type FusionPart = Extract<Part, { type: "server-tool" }>;

export function panelPart(ctx: PluginContext, run: PanelRun, models: readonly string[], analyst: string): FusionPart {
  const id = ctx.helpers.id(ctx.request.format === "messages" ? "srvtoolu_" : "st_");
  const failed = run.records.filter((r) => r.status === "failed").map((r) => ({ model: r.model, error: r.error ?? "failed" }));
  const result: Record<string, unknown> = { status: run.drafts.length > 0 ? "ok" : "error", responses: run.drafts.map((d) => ({ model: d.model, content: d.text })) };
  if (failed.length > 0) result.failed_models = failed;
  if (run.drafts.length === 0) result.failure_reason = "all_panels_failed";
  return { type: "server-tool", id, callId: id, name: "service:fusion", arguments: JSON.stringify({ analysis_models: models, model: analyst }), status: "completed", result };
}

/** The analyst's response with the panel part first. */
export function withPanel(response: CanonicalResponse, part: FusionPart): CanonicalResponse {
  return { ...response, parts: [part, ...response.parts] };
}

/** The analyst's stream with the panel phase right after its `start`. */
export async function* withPanelEvents(events: EventStream, part: FusionPart): EventStream {
  let shown = false;
  for await (const event of events) {
    yield event;
    if (!shown && event.type === "start") {
      shown = true;
      yield* phaseEvents(part);
    }
  }
}

function* phaseEvents(part: FusionPart): Generator<StreamEvent> {
  yield { type: "server-tool-start", id: part.id, callId: part.callId, name: part.name, arguments: part.arguments };
  yield { type: "server-tool-end", id: part.id, status: part.status, result: part.result };
}
