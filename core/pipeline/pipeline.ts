/**
 * THE request pipeline, in one place. Outermost first: code before `next()` runs in this order on
 * the way in, code after it in reverse on the way out. It resolves with an outcome or throws; the HTTP edge renders
 * it (core/http/render.ts), the batch worker encodes its results from it. The innermost stage runs the model turn
 * (core/pipeline/turn/turn.ts: around-plugins › routing › route-plugins › call-with-fallbacks).
 */
import { accountingStage } from "./stages/accounting.ts";
import { agentLoopStage } from "./stages/agent-loop.ts";
import { authStage } from "./stages/auth.ts";
import { cacheStage } from "./stages/cache.ts";
import { guardrailsStage } from "./stages/guardrails.ts";
import { limitsStage } from "./stages/limits.ts";
import { strictStage } from "./stages/strict.ts";
import { pluginsStage } from "./stages/plugins.ts";
import { retrievalInputStage } from "./stages/retrieval-input.ts";
import { compose, type Stage } from "./stage.ts";
import type { RequestContext } from "./context.ts";
import type { Outcome } from "./outcome.ts";

export const PIPELINE: readonly Stage[] = Object.freeze([authStage, strictStage, limitsStage, guardrailsStage, accountingStage, cacheStage, pluginsStage, agentLoopStage]);

/**
 * The same stages for an embeddings or rerank request (README "Embeddings and rerank"), with its input bounds checked
 * before the reservation, and no plugins: they rewrite and wrap chat turns, which a retrieval request has none of.
 * The innermost stage runs one model turn, which calls the adapter's `embed` or `rerank` (turn/attempt.ts).
 */
export const RETRIEVAL_PIPELINE: readonly Stage[] = Object.freeze([authStage, strictStage, retrievalInputStage, limitsStage, guardrailsStage, accountingStage, agentLoopStage]);

const runChat = compose(PIPELINE);
const runRetrieval = compose(RETRIEVAL_PIPELINE);

/** Runs a request (its context from `newContext`) to its outcome; both compositions are built once at module load. */
export function runPipeline(ctx: RequestContext): Promise<Outcome> {
  return ctx.request.task === undefined ? runChat(ctx) : runRetrieval(ctx);
}
