/**
 * Runs the server-tool calls of an agent-loop step: concurrently, at most `agent_loop.tool_concurrency` of one
 * request at a time, each bounded by `agent_loop.tool_timeout_ms` and by the client's connection. A call that fails,
 * throws, times out or is refused by the network policy becomes an error result the model sees (it can recover);
 * it never fails the request.
 */
import { ContainerError, type ContainerScope } from "../../containers/contract.ts";
import { generateImage } from "../../images/generate.ts";
import type { ServerToolPart } from "../../model/parts.ts";
import type { ToolRunContext } from "../../registry/tool.ts";
import type { DeclaredTool, DeclaredTools } from "../../tools/declared.ts";
import { sharedCatalogView } from "../../routing/catalog-view.ts";
import type { RequestContext } from "../context.ts";
import { forModel } from "./model-view.ts";

/** One call the model made to a server tool. */
export interface ServerCall {
  /** Id of the item / block the client sees. */
  id: string;
  /** The model's call id. */
  callId: string;
  /** The name the model called (for the result message upstream). */
  modelName: string;
  arguments: string;
  tool: DeclaredTool;
}

/** Counts for `usage.serverTools` over the whole loop. */
export type ToolCounters = Record<string, number>;

export class ToolRunner {
  /** Deferred function tools revealed by `service:tool_search`, visible to the model from the next turn. */
  readonly revealed = new Set<string>();
  readonly counters: ToolCounters = { tool_calls_requested: 0, tool_calls_executed: 0 };
  private readonly uses = new Map<string, number>();
  private containerScope: ContainerScope | undefined;
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly ctx: RequestContext,
    private readonly declared: DeclaredTools,
    /** Aborted when the loop ends early (the client left): every running call is cancelled. */
    private readonly signal: AbortSignal,
  ) {}

  /** Runs one call (waiting for a free slot first); resolves with the finished part, never rejects. */
  async run(call: ServerCall): Promise<ServerToolPart> {
    const startedAt = this.ctx.deps.clock.now();
    const part = await this.runInSlot(call);
    // Metrics and traces of the call (core/observe/), from the model's call to its result.
    this.ctx.deps.observer?.toolCall(this.ctx, part, startedAt);
    return part;
  }

  private async runInSlot(call: ServerCall): Promise<ServerToolPart> {
    this.counters.tool_calls_requested!++;
    const previousUses = this.uses.get(call.tool.module.id) ?? 0;
    this.uses.set(call.tool.module.id, previousUses + 1);
    await this.slot();
    try {
      if (this.signal.aborted) return failed(call, "cancelled: the request ended");
      this.counters.tool_calls_executed!++;
      const counter = call.tool.module.usageCounter;
      if (counter) this.counters[counter] = (this.counters[counter] ?? 0) + 1;
      const result = await this.execute(call, previousUses);
      return { type: "server-tool", id: call.id, callId: call.callId, name: call.tool.module.id, arguments: call.arguments, status: "completed", result };
    } catch (thrown) {
      return failed(call, thrown instanceof Error ? thrown.message : String(thrown));
    } finally {
      this.release();
    }
  }

  private async execute(call: ServerCall, previousUses: number): Promise<unknown> {
    const args = parseArguments(call.arguments);
    const timeoutMs = Math.max(this.ctx.deps.config.agentLoop.toolTimeoutMs, ownTimeMs(call.tool.module.runTimeMs, args));
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = AbortSignal.any([this.signal, timeout]);
    const run = call.tool.module.run(args, this.contextFor(call.tool, signal, previousUses));
    // A tool that ignores its signal must still not hold the loop: the race settles on abort.
    const aborted = new Promise<never>((_, reject) => {
      const onAbort = () => reject(new Error(timeout.aborted ? `timed out after ${timeoutMs} ms` : "cancelled: the request ended"));
      if (signal.aborted) onAbort();
      else signal.addEventListener("abort", onAbort, { once: true });
    });
    run.catch(() => undefined); // a rejection after the race was lost is not an unhandled one
    const result = await Promise.race([run, aborted]);
    return result === undefined ? null : result;
  }

  private contextFor(tool: DeclaredTool, signal: AbortSignal, previousUses: number): ToolRunContext {
    const ctx = this.ctx;
    const context: ToolRunContext = {
      parameters: tool.parameters,
      config: tool.config,
      helpers: ctx.deps.guardedHelpers,
      signal,
      // Bound to the call's signal, so a fetch a tool forgot to give it still ends with the call.
      fetch: (input, init) => ctx.deps.serverFetch(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, signal]) : signal }),
      upstreamFetch: ctx.deps.fetch,
      catalog: sharedCatalogView(ctx.deps.catalog, ctx.deps.routing),
      tools: ctx.request.tools,
      reveal: (names) => {
        for (const name of names) this.revealed.add(name);
      },
      previousUses,
      container: (request) => this.containers().open(request),
      charge: async (usd, description) => void (await ctx.bill.charge({ tool: tool.module.id }, usd, description)),
      generateImage: (request) => generateImage(ctx, tool.module.id, request, signal),
    };
    if (ctx.request.sessionId !== undefined) context.sessionId = ctx.request.sessionId;
    if (ctx.principal?.workspaceId !== undefined) context.workspaceId = ctx.principal.workspaceId;
    return context;
  }

  /** The request's view of its containers, made on first use (most requests never open one). */
  containers(): ContainerScope {
    if (this.containerScope) return this.containerScope;
    const service = this.ctx.deps.containers;
    const workspaceId = this.ctx.principal?.workspaceId;
    if (!service || workspaceId === undefined) throw new ContainerError("containers are not available on this gateway");
    const sessionKey = this.ctx.request.sessionId;
    return (this.containerScope = service.forRequest(sessionKey === undefined ? { workspaceId } : { workspaceId, sessionKey }));
  }

  /** Containers the request's tools used (the Messages result's `container`). */
  usedContainers(): ReadonlyArray<{ id: string; expiresAt: number }> {
    return this.containerScope?.used() ?? [];
  }

  private async slot(): Promise<void> {
    if (this.running < this.ctx.deps.config.agentLoop.toolConcurrency) {
      this.running++;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  /** Hands the slot to the next waiting call, or frees it. */
  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.running--;
  }
}

function failed(call: ServerCall, error: string): ServerToolPart {
  return { type: "server-tool", id: call.id, callId: call.callId, name: call.tool.module.id, arguments: call.arguments, status: "failed", error };
}

function parseArguments(text: string): Record<string, unknown> {
  if (text.trim() === "") return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error("the arguments are not valid JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new Error("the arguments must be a JSON object");
  return value as Record<string, unknown>;
}

/** What the model is handed for a finished call: the result (inline data for the client left out), or `{error}`. */
export function resultForModel(part: ServerToolPart): string {
  // A replayed item may carry no result at all (a client sends back only the call): the model sees `null`, never a
  // missing content that adapters would have to guess about.
  return JSON.stringify(part.status === "completed" ? forModel(part.result) : { error: part.error ?? "the tool failed" }) ?? "null";
}

/** Margin over a tool's own time limit, for its bookkeeping after the command was killed. */
const OWN_LIMIT_MARGIN_MS = 2_000;

function ownTimeMs(runTimeMs: ((args: Record<string, unknown>) => number) | undefined, args: Record<string, unknown>): number {
  if (!runTimeMs) return 0;
  const own = runTimeMs(args);
  return Number.isFinite(own) && own > 0 ? own + OWN_LIMIT_MARGIN_MS : 0;
}
