/**
 * agent-loop (innermost stage): runs the request's model turns. Today one turn; with server tools it runs them
 * between turns and calls the turn again until the model answers without them.
 */
import { runTurn } from "../turn/turn.ts";
import type { Stage } from "../stage.ts";

export const agentLoopStage: Stage = { name: "agent-loop", run: (ctx) => runTurn(ctx, ctx.request) };
