/**
 * The fusion panel: every analysis model answers the request on its own, all at once, each as a request of its own
 * inside this one (the hook context's `complete`: billed with the request, credit held per turn), with the web tools
 * in an agent loop of its own, bounded by `max_tool_calls`. A model that fails is recorded, never fatal. A tool the
 * gateway cannot offer (no search engine configured) is dropped from the panel's tools, once, and said so.
 */
import type { CanonicalRequest, PluginContext, StreamEvent, Tool } from "../../core/sdk/index.ts";
import type { Draft } from "./drafts.ts";

/**
 * Told each phase event as it happens (`panel.added`, `panel.delta`, …, without the `fusion_call.` prefix); when
 * given, the panel's requests run streamed so their text arrives while they write.
 */
export type Progress = (event: string, data: Record<string, unknown>) => void;

export interface PanelSettings {
  models: readonly string[];
  /** Server tool names without `service:` (web_search, web_fetch). */
  tools: readonly string[];
  maxToolCalls: number;
  maxTokens: number | undefined;
  temperature: number | undefined;
}

export interface PanelRun {
  drafts: Draft[];
  records: Array<{ model: string; status: "completed" | "failed"; chars?: number; error?: string; error_type?: string; status_code?: number }>;
  /** Tools dropped because the gateway cannot run them, with why. */
  unavailableTools: string[];
}

export async function runPanel(ctx: PluginContext, base: CanonicalRequest, settings: PanelSettings, progress?: Progress): Promise<PanelRun> {
  const unavailable = new Map<string, string>();
  const runs = settings.models.map(async (model) => {
    progress?.("panel.added", { model });
    try {
      const text = await draftOf(ctx, base, model, settings, unavailable, progress);
      progress?.("panel.completed", { model, content: text });
      return { model, status: "completed" as const, text };
    } catch (error) {
      const { type, status } = (error ?? {}) as { type?: unknown; status?: unknown };
      const message = error instanceof Error ? error.message : String(error);
      // `message`, where the reference says `error`: the official OpenAI SDKs end a stream at any event whose data
      // has a truthy `error`, so one failing panel model would fail the whole reply for their users.
      progress?.("panel.failed", { model, message, ...(typeof status === "number" ? { status_code: status } : {}) });
      return { model, status: "failed" as const, error: message, ...(typeof type === "string" ? { errorType: type } : {}), ...(typeof status === "number" ? { statusCode: status } : {}) };
    }
  });
  const results = await Promise.all(runs);
  return {
    drafts: results.flatMap((r) => (r.status === "completed" && r.text.trim() !== "" ? [{ model: r.model, text: r.text }] : [])),
    records: results.map((r) =>
      r.status === "completed"
        ? { model: r.model, status: r.status, chars: r.text.length }
        : { model: r.model, status: r.status, error: r.error, ...(r.errorType ? { error_type: r.errorType } : {}), ...(r.statusCode !== undefined ? { status_code: r.statusCode } : {}) },
    ),
    unavailableTools: [...unavailable].map(([tool, why]) => `${tool}: ${why}`),
  };
}

/** One model's draft; retried without a tool the gateway refuses to declare (a 400 before any upstream call). */
async function draftOf(ctx: PluginContext, base: CanonicalRequest, model: string, settings: PanelSettings, unavailable: Map<string, string>, progress: Progress | undefined): Promise<string> {
  let tools = settings.tools.filter((name) => !unavailable.has(name));
  const onEvent = progress && ((event: StreamEvent) => relay(event, model, progress));
  for (;;) {
    try {
      const response = await ctx.complete(panelRequest(base, model, tools, settings), onEvent ? { onEvent } : undefined);
      // Streamed, a failure after the first byte arrives in-band: the draft failed all the same.
      if (response.error) throw ctx.helpers.error(response.error.type, response.error.message, { status: response.error.status });
      return response.parts.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");
    } catch (error) {
      const refused = refusedTool(error, tools);
      if (refused === undefined) throw error;
      unavailable.set(refused, error instanceof Error ? error.message : String(error));
      tools = tools.filter((name) => name !== refused);
    }
  }
}

/** A panel model's text and reasoning as the reference's `panel.delta` and `panel.reasoning.delta`. */
function relay(event: StreamEvent, model: string, progress: Progress): void {
  if (event.type === "text-delta" && event.delta !== "") progress("panel.delta", { model, delta: event.delta });
  else if (event.type === "reasoning-delta" && event.delta !== "") progress("panel.reasoning.delta", { model, delta: event.delta });
}

function panelRequest(base: CanonicalRequest, model: string, tools: readonly string[], settings: PanelSettings): CanonicalRequest {
  const serverTools: Tool[] = tools.map((name) => ({ kind: "server", type: `service:${name}` }));
  const request: CanonicalRequest = {
    ...base,
    model,
    models: [],
    stream: false,
    // The panel answers in prose with our web tools only: the client's functions are the analyst's to call.
    tools: serverTools,
    toolChoice: undefined,
    maxToolCalls: settings.maxToolCalls,
    stopWhen: undefined,
    output: base.output?.verbosity !== undefined ? { verbosity: base.output.verbosity } : undefined,
    sampling: settings.temperature !== undefined ? { ...base.sampling, temperature: settings.temperature } : base.sampling,
    maxTokens: settings.maxTokens ?? base.maxTokens,
    plugins: [],
    warnings: [],
    original: {},
  };
  return request;
}

/** The panel tool a declaration error names (`tools[1].type: …` over the panel's own tool list), if any. */
function refusedTool(error: unknown, tools: readonly string[]): string | undefined {
  const e = error as { type?: unknown; metadata?: Record<string, unknown> } | null;
  if (e?.type !== "invalid_request") return undefined;
  const field = String(e.metadata?.field ?? e.metadata?.param ?? "");
  const index = /^tools\[(\d+)\]/.exec(field)?.[1];
  return index === undefined ? undefined : tools[Number(index)];
}
