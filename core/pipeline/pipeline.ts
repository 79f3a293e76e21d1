/**
 * THE request pipeline (ARCHITECTURE §4), in one place. Outermost first: code before `next()` runs in this order on
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
import { compose, type Stage } from "./stage.ts";

export const PIPELINE: readonly Stage[] = Object.freeze([authStage, strictStage, limitsStage, guardrailsStage, accountingStage, cacheStage, pluginsStage, agentLoopStage]);

/** Runs a request (its context from `newContext`) to its outcome; built once at module load. */
export const runPipeline = compose(PIPELINE);
