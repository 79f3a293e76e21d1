/**
 * The server-tool agent loop (spec "What the service does" 4): the outermost caller of the model turn. Each step is
 * one turn (its own credit-hold extension, metering, and every plugin's `around`); when the model calls server
 * tools the gateway runs them, hands the model their results and turns again, until the model answers without them,
 * calls a client function tool (the client gets those calls with everything already executed), or a stop condition
 * makes the next turn the last one (tool calls disabled). Streams show each step as it happens; a non-streamed reply
 * is the same events collected, so both carry the same content.
 */
import { toGatewayError } from "../../errors.ts";
import { ResponseBuilder } from "../../model/collect.ts";
import type { StreamEvent } from "../../model/events.ts";
import type { Message, ServerToolPart, ToolCallPart } from "../../model/parts.ts";
import { eventsFromResponse } from "../../model/replay.ts";
import type { CanonicalRequest } from "../../model/request.ts";
import type { CanonicalResponse, Finish } from "../../model/response.ts";
import { addCounters } from "../../model/usage.ts";
import type { Warning } from "../../model/warnings.ts";
import { modelTools, type DeclaredTools } from "../../tools/declared.ts";
import type { RequestContext } from "../context.ts";
import { responseOutcome, streamOutcome, type Outcome } from "../outcome.ts";
import { runTurn } from "../turn/turn.ts";
import { citationsIn, sourcesOf, type Source } from "./citations.ts";
import { resultOf } from "./history.ts";
import { stopReason } from "./stop.ts";
import { ToolRunner, type ServerCall } from "./tool-runner.ts";

/** One step, for `service_metadata` (the loop's pipeline entry). */
interface StepRecord {
  step: number;
  model: string | undefined;
  provider: string | undefined;
  calls: Array<{ id: string; tool: string; status: string; error?: string }>;
}

export async function runAgentLoop(ctx: RequestContext, declared: DeclaredTools, history: Message[]): Promise<Outcome> {
  const loop = new AgentLoop(ctx, declared, history);
  // The first turn runs before anything is sent: its failure (402, no provider) is still an HTTP error.
  const first = await loop.turn(1);
  if (!ctx.request.stream && first.kind === "response" && !loop.callsServerTools(first.response)) {
    return first; // the model answered without our tools: its reply as it is
  }
  if (ctx.request.stream) return streamOutcome(loop.events(first), () => loop.cancel());
  const builder = new ResponseBuilder();
  for await (const event of loop.events(first)) builder.add(event);
  return responseOutcome(loop.finalResponse(builder.response));
}

class AgentLoop {
  private readonly runner: ToolRunner;
  private readonly controller = new AbortController();
  private readonly messages: Message[];
  private steps = 0;
  /** Why the next turn is the last (a stop condition fired); tool calls are disabled on it. */
  private stopping: string | undefined;
  /** Why the loop ended before the model's final answer (credits), for the warning and metadata. */
  private cutShort: string | undefined;
  private readonly records: StepRecord[] = [];
  private readonly warnings: Warning[] = [];
  private last: CanonicalResponse | undefined;
  /** Pages the loop's tools returned, cited where the model's later text names them. */
  private readonly sources: Source[] = [];
  /** Text of the parts being shown, by id, while sources exist (for their citations). */
  private readonly texts = new Map<string, string>();

  constructor(
    private readonly ctx: RequestContext,
    private readonly declared: DeclaredTools,
    history: Message[],
  ) {
    this.messages = [...history];
    // `max_tool_calls: 0` (and no conditions): not one step, so the first turn is already the last.
    if (ctx.request.stopWhen === undefined && ctx.request.maxToolCalls === 0) this.stopping = "max_tool_calls (0) reached";
    const signal = AbortSignal.any([ctx.signal, this.controller.signal]);
    this.runner = new ToolRunner(ctx, declared, signal);
  }

  /** Runs turn `n`; what its translation could not carry joins the request's warnings (once each). */
  async turn(n: number): Promise<Outcome> {
    const request = this.turnRequest(n);
    try {
      return await runTurn(this.ctx, request);
    } finally {
      this.keepWarnings(request);
    }
  }

  /** Adds a turn's warnings to the request's (the list the reply's metadata shows), skipping repeats. */
  private keepWarnings(turn: CanonicalRequest): void {
    const list = this.ctx.request.warnings;
    for (const warning of turn.warnings) {
      if (!list.some((w) => w.code === warning.code && w.field === warning.field && w.message === warning.message)) list.push(warning);
    }
  }

  /** The request of turn `n`: the history so far, our tools as functions, and no tool calls on a last turn. */
  private turnRequest(turn: number): CanonicalRequest {
    const request = this.ctx.request;
    const next: CanonicalRequest = { ...request, messages: this.messages, tools: modelTools(request, this.declared, this.runner.revealed), warnings: [] };
    if (this.stopping !== undefined) next.toolChoice = { type: "none" };
    // A forced tool (`required`, a named one) applies to the first turn; later ones would never end.
    else if (turn > 1 && request.toolChoice && request.toolChoice.type !== "none") next.toolChoice = { type: "auto" };
    else if (request.toolChoice?.type === "tool") {
      // A server tool forced by its type (`service:web_search`) is called by the name the model sees.
      const forced = request.toolChoice.name;
      const entry = this.declared.list.find((tool) => tool.module.id === forced);
      if (entry) next.toolChoice = { ...request.toolChoice, name: entry.modelName };
    }
    return next;
  }

  callsServerTools(response: CanonicalResponse): boolean {
    return response.parts.some((part) => part.type === "tool-call" && this.declared.byModelName.has(part.name));
  }

  cancel(): void {
    this.controller.abort();
  }

  /** The whole run as one canonical event stream: one `start`, every turn's content, each tool call, one usage and finish. */
  async *events(first: Outcome): AsyncGenerator<StreamEvent, void, undefined> {
    try {
      let outcome: Outcome | undefined = first;
      for (let turn = 1; outcome; turn++) {
        const builder = new ResponseBuilder();
        const serverIds = new Set<string>();
        // Client function calls are shown after the step's server tools ran: the client acts on what comes last.
        const held: StreamEvent[] = [];
        let finish: Finish = { reason: "stop" };
        const source = outcome.kind === "stream" ? outcome.events : eventsFromResponse(outcome.response);
        if (outcome.kind === "response") this.last = outcome.response;
        for await (const event of source) {
          builder.add(event);
          const shown = this.show(event, turn, serverIds);
          if (event.type === "finish") finish = event.finish;
          if (shown && isToolCallEvent(shown)) held.push(shown);
          else if (shown) yield shown;
          if (event.type === "error") return; // the turn failed in-band: that is the reply's end
        }
        outcome = undefined;
        const parts = builder.response.parts;
        const calls = parts.filter((part): part is ToolCallPart => part.type === "tool-call" && serverIds.has(part.id));
        const clientCalls = parts.some((part) => part.type === "tool-call" && !serverIds.has(part.id));
        if (calls.length === 0 || this.stopping !== undefined) {
          if (calls.length > 0) this.warn(`the model called ${calls.map((c) => c.name).join(", ")} after tool calls were disabled; not run`);
          yield* held;
          // Our calls made on a last turn are dropped: the reply is a plain answer, not `tool_calls` naming none.
          yield* this.end(clientCalls ? { reason: "tool_calls" } : calls.length > 0 ? { reason: "stop" } : finish);
          return;
        }
        const results: ServerToolPart[] = [];
        yield* this.step(calls.map((call) => this.serverCall(call)), results);
        this.messages.push({ role: "assistant", parts: parts.filter((part) => part.type !== "server-tool") });
        this.messages.push({ role: "tool", parts: results.map((result) => resultOf(result, this.declared)) });
        if (clientCalls) {
          yield* held;
          yield* this.end({ reason: "tool_calls" });
          return;
        }
        this.stopping = stopReason(this.ctx.request.stopWhen, this.ctx.request.maxToolCalls, {
          steps: this.steps,
          cost: this.ctx.bill.total().total,
          usage: this.ctx.bill.usage,
          calledTools: calls.flatMap((call) => [call.name, this.declared.byModelName.get(call.name)!.module.id]),
          finish,
        });
        try {
          outcome = await this.turn(turn + 1);
        } catch (thrown) {
          const failure = toGatewayError(thrown);
          if (failure.type !== "payment_required") throw thrown;
          // The key cannot cover another turn: end with what the loop has, and say why.
          this.cutShort = "insufficient credits for another model turn";
          this.warn(`the agent loop stopped after ${this.steps} step(s): ${this.cutShort}`);
          yield* this.end({ reason: "other", raw: "insufficient_credits" });
          return;
        }
      }
    } finally {
      this.controller.abort(); // tools still running when the client left are cancelled
    }
  }

  /** What of a turn's event the client sees: one `start`, no per-turn usage or finish, our tools' calls hidden. */
  private show(event: StreamEvent, turn: number, serverIds: Set<string>): StreamEvent | undefined {
    switch (event.type) {
      case "start":
        return turn === 1 ? event : undefined;
      case "usage":
      case "finish":
        return undefined;
      case "tool-call-start":
        if (!this.declared.byModelName.has(event.name)) return event;
        serverIds.add(event.id);
        return undefined;
      case "tool-call-delta":
      case "tool-call-end":
        return serverIds.has(event.id) ? undefined : event;
      case "text-start":
      case "text-delta":
      case "text-end":
        return this.cite(turn === 1 ? event : { ...event, id: `t${turn}_${event.id}` });
      case "reasoning-start":
      case "reasoning-delta":
      case "reasoning-end":
      case "refusal-delta":
        // Part ids restart with every upstream reply: keep them unique across the whole loop.
        return turn === 1 ? event : { ...event, id: `t${turn}_${event.id}` };
      default:
        return event;
    }
  }

  /** Tracks shown text while there are sources, and annotates a finished text part with the ones it names. */
  private cite(event: Extract<StreamEvent, { type: "text-start" | "text-delta" | "text-end" }>): StreamEvent {
    if (this.sources.length === 0) return event;
    if (event.type === "text-delta") this.texts.set(event.id, (this.texts.get(event.id) ?? "") + event.delta);
    if (event.type !== "text-end") return event;
    const citations = citationsIn(this.texts.get(event.id) ?? "", this.sources);
    this.texts.delete(event.id);
    return citations.length === 0 ? event : { ...event, annotations: [...(event.annotations ?? []), ...citations] };
  }

  private serverCall(call: ToolCallPart): ServerCall {
    const prefix = this.ctx.format.id === "messages" ? "srvtoolu_" : "st_";
    return { id: this.ctx.deps.ids.id(prefix), callId: call.id, modelName: call.name, arguments: call.arguments, tool: this.declared.byModelName.get(call.name)! };
  }

  /** Runs one step's calls concurrently; each one's start is shown at once, each end as it finishes. */
  private async *step(calls: ServerCall[], results: ServerToolPart[]): AsyncGenerator<StreamEvent, void, undefined> {
    this.steps++;
    for (const call of calls) yield { type: "server-tool-start", id: call.id, callId: call.callId, name: call.tool.module.id, arguments: call.arguments };
    const running = new Map(calls.map((call, index) => [index, this.runner.run(call).then((part) => ({ index, part }))]));
    while (running.size > 0) {
      const { index, part } = await Promise.race(running.values());
      running.delete(index);
      results[index] = part;
      if (part.status === "completed") this.sources.push(...sourcesOf(part.result));
      const end: Extract<StreamEvent, { type: "server-tool-end" }> = { type: "server-tool-end", id: part.id, status: part.status };
      if (part.result !== undefined) end.result = part.result;
      if (part.error !== undefined) end.error = part.error;
      yield end;
    }
    this.records.push({
      step: this.steps,
      model: this.ctx.served?.model.id,
      provider: this.ctx.served?.provider.id,
      calls: results.map((part) => ({ id: part.id, tool: part.name, status: part.status, ...(part.error !== undefined ? { error: part.error } : {}) })),
    });
  }

  /** The run's usage (every turn, plus the tool counters) and its finish; the bill is added by accounting. */
  private *end(finish: Finish): Generator<StreamEvent, void, undefined> {
    // Before the finish event: a stream encoder renders the closing frame (Messages `container`) from it.
    const containers = this.runner.usedContainers();
    if (containers.length > 0) this.ctx.usedContainers = containers;
    const counters = this.runner.counters;
    const spent = this.ctx.bill.usage;
    // The gateway's own counters, plus what upstreams ran natively (their web searches), summed.
    const usage = counters.tool_calls_requested! > 0 ? { ...spent, serverTools: addCounters(spent.serverTools ?? {}, counters) } : spent;
    yield { type: "usage", usage };
    yield { type: "finish", finish };
    if (this.records.length > 0 || this.cutShort) {
      const summary = `${this.steps} step(s), ${counters.tool_calls_executed} tool call(s)${this.stopping ? `; stopped by ${this.stopping}` : ""}${this.cutShort ? `; ${this.cutShort}` : ""}`;
      const data: Record<string, unknown> = { steps: this.records };
      if (this.stopping) data.stopped_by = this.stopping;
      if (this.cutShort) data.cut_short = this.cutShort;
      this.ctx.pipeline.push({ type: "server_tools", name: "agent-loop", summary, data });
    }
    for (const warning of this.warnings) this.ctx.request.warnings.push(warning);
  }

  private warn(message: string): void {
    this.warnings.push({ code: "agent_loop", message });
  }

  /** A collected run: the last turn's identity fields that events do not carry. */
  finalResponse(response: CanonicalResponse): CanonicalResponse {
    const last = this.last;
    if (last?.systemFingerprint !== undefined) response.systemFingerprint = last.systemFingerprint;
    if (last?.serviceTier !== undefined && response.serviceTier === undefined) response.serviceTier = last.serviceTier;
    return response;
  }
}

function isToolCallEvent(event: StreamEvent): boolean {
  return event.type === "tool-call-start" || event.type === "tool-call-delta" || event.type === "tool-call-end";
}
