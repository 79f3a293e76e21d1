/**
 * agent-loop (innermost stage): runs the request's model turns. A request without server tools is one turn; with
 * them, the agent loop (../agent/loop.ts) runs turns and tools until the model answers. A reply's server-tool parts
 * that a client replays in its history become the call and result the model saw.
 */
import { errors } from "../../errors.ts";
import type { CanonicalRequest } from "../../model/request.ts";
import { sharedCatalogView } from "../../routing/catalog-view.ts";
import { declaredTools } from "../../tools/declared.ts";
import { expandServerToolHistory, hasServerToolHistory } from "../agent/history.ts";
import { runAgentLoop } from "../agent/loop.ts";
import { DEFAULT_MAX_TOOL_CALLS } from "../agent/stop.ts";
import type { RequestContext } from "../context.ts";
import type { Stage } from "../stage.ts";
import { runTurn } from "../turn/turn.ts";

export const agentLoopStage: Stage = {
  name: "agent-loop",
  run(ctx) {
    const request = ctx.request;
    checkMaxToolCalls(request);
    // Most requests declare no tools at all: nothing to check or resolve for them.
    const declared = request.tools.length === 0 ? undefined : declaredTools(request, declarationEnv(ctx));
    const replayed = hasServerToolHistory(request.messages);
    if (!declared) return runTurn(ctx, replayed ? { ...request, messages: expandServerToolHistory(request.messages, undefined) } : request);
    return runAgentLoop(ctx, declared, replayed ? expandServerToolHistory(request.messages, declared) : request.messages);
  },
};

/** Spec: `max_tool_calls` defaults to 30, which is also its maximum (0: the model gets no tool step at all). */
function checkMaxToolCalls(request: CanonicalRequest): void {
  const max = request.maxToolCalls;
  if (max === undefined || max === null) return;
  if (!Number.isInteger(max) || max < 0 || max > DEFAULT_MAX_TOOL_CALLS) {
    throw errors.invalid(`max_tool_calls: must be an integer from 0 to ${DEFAULT_MAX_TOOL_CALLS}, got ${max}`, { field: "max_tool_calls" });
  }
}

function declarationEnv(ctx: RequestContext) {
  const deps = ctx.deps;
  return { registry: deps.registry, settings: deps.config.tools, catalog: sharedCatalogView(deps.catalog, deps.routing), helpers: deps.guardedHelpers };
}
